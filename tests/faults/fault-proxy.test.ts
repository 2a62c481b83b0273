import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js'
import { waitFor } from '../helpers/wait.js'

/**
 * The foul-weather tests' lost acknowledgement (tests/helpers/fault-proxy.ts) must lose the reply it
 * is armed for, whatever the driver sent before on that connection: a `commit` postgres.js prepared
 * on an earlier transaction is sent by name only, and a proxy matching bytes missed it (the
 * hand-over then answered 202 where its test expected 503).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('the fault proxy\'s lost reply (PostgreSQL)', () => {
  let database: TestDatabase
  let proxy: FaultProxy
  let direct: postgres.Sql
  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!)
    proxy = await startFaultProxy({ port: Number(new URL(database.url).port || 5432) })
    direct = postgres(database.url, { max: 1, onnotice: () => {} })
    await direct`create table lost_replies (id int primary key)`
  })
  afterAll(async () => {
    await direct.end({ timeout: 1 })
    await proxy.close()
    await database.drop()
  })

  const stored = async (id: number) => (await direct`select 1 from lost_replies where id = ${id}`).length === 1

  it('loses the reply of a commit prepared by an earlier transaction on the connection: the row commits, the client hears nothing', async () => {
    const client = postgres(proxy.url(database.url), { max: 1, onnotice: () => {} })
    try {
      // the connection's first transaction prepares `commit`; its second sends it by name
      await client.begin(async tx => { await tx`insert into lost_replies values (1)` })
      proxy.loseReply(/insert into lost_replies/i, /commit/i)
      let answered = false
      const second = client.begin(async tx => { await tx`insert into lost_replies values (2)` }).then(() => { answered = true }, (error: unknown) => error)
      await waitFor(async () => await stored(2), { what: 'the second row committed' })
      await new Promise(resolve => setTimeout(resolve, 200))
      expect(answered).toBe(false)
      proxy.cut()
      expect(await second).toMatchObject({ code: expect.stringMatching(/ECONNRESET|CONNECTION_CLOSED/) })
    } finally {
      proxy.heal()
      await client.end({ timeout: 1 })
    }
  })

  it('loses the reply of a statement run, whether its text came with it or was prepared before', async () => {
    const client = postgres(proxy.url(database.url), { max: 1, onnotice: () => {} })
    try {
      await client`select count(*) from lost_replies where id = ${0}`
      proxy.loseReply(/from lost_replies/i, /^B/)
      const run = client`select count(*) from lost_replies where id = ${0}`.then(() => 'answered', () => 'failed')
      await new Promise(resolve => setTimeout(resolve, 300))
      proxy.cut()
      expect(await run).toBe('failed')
    } finally {
      proxy.heal()
      await client.end({ timeout: 1 })
    }
  })
})
