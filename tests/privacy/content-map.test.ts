import { describe, expect, it } from 'vitest'
import { CONTENT_MAP, NO_CONTENT } from '../../src/privacy/content-map.js'
import { tablesOf } from '../helpers/tables.js'
import { useTestRuntime } from '../helpers/runtime.js'

/** The house rule of wave 4: every table either says what it holds of a person (CONTENT_MAP) or that it holds nothing (NO_CONTENT). */
describe('privacy: the content map', () => {
  const ctx = useTestRuntime()

  it('names every table of the schema once', async () => {
    const listed = [...CONTENT_MAP.map(entry => entry.table), ...NO_CONTENT]
    expect(new Set(listed).size).toBe(listed.length)
    expect([...listed].sort()).toEqual(await tablesOf(ctx.current.database.db))
  })
})
