import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { uploadsSeen, useMediaDir } from './helpers.js'

/** CONTRACT.md 12 and 13: the upload takes only multipart/form-data, and its 415 says so, naming the type received. */
describe('POST /api/media.php with a body that is not multipart', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir() } })
  const post = async (body: string | Uint8Array, type?: string) => await fetch(`${ctx.gateway.url}/api/media.php`, {
    method: 'POST',
    headers: { authorization: ctx.workspace.authorization, ...(type && { 'content-type': type }) },
    body
  })

  it.each([
    ['application/json', '{"file":"x"}'],
    ['application/x-www-form-urlencoded', 'file=x'],
    ['text/csv', 'file\nx']
  ])('answers %s with a 415 naming it and multipart/form-data', async (type, body) => {
    const response = await post(body, type)
    expect(response.status).toBe(415)
    const answer = await response.json() as { ok: boolean, code: string, error: string }
    expect(answer).toMatchObject({ ok: false, code: 'unsupported_media_type' })
    expect(answer.error).toBe(`Unsupported content type ${JSON.stringify(type)}: send multipart/form-data with a file part`)
    expect(uploadsSeen(ctx.gateway)).toBe(0)
  })

  it('answers a body without a Content-Type with a 415 naming multipart/form-data', async () => {
    const response = await post(new TextEncoder().encode('file=x'))
    expect(response.status).toBe(415)
    expect((await response.json() as { error: string }).error).toBe('The request has a body but no Content-Type: send multipart/form-data with a file part')
  })
})
