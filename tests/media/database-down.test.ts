import { describe, expect, it, vi } from 'vitest'
import { sampleFile } from '../../src/sandbox/sample-media.js'
import { useFaultyGateway } from '../faults/helpers.js'
import { form, type Part } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { padded, upload, useMediaDir } from './helpers.js'

const TO = '15552700001'
const pdf = () => ({ bytes: padded(sampleFile('document').bytes, 200_000), filename: 'a.pdf' })

/** A multipart body sent in two halves (no Content-Length): `between` runs once the first half is out, while the request is being read. */
async function postInHalves (url: string, authorization: string, parts: Part[], between: () => void | Promise<void>): Promise<Response> {
  const request = new Request(url, { method: 'POST', body: form(parts) })
  const bytes = Buffer.from(await request.arrayBuffer())
  const half = Math.floor(bytes.length / 2)
  const body = new ReadableStream({
    async start (controller) {
      controller.enqueue(bytes.subarray(0, half))
      await new Promise(resolve => setTimeout(resolve, 300))
      await between()
      controller.enqueue(bytes.subarray(half))
      controller.close()
    }
  })
  return await fetch(url, { method: 'POST', headers: { authorization, 'content-type': request.headers.get('content-type')! }, body, duplex: 'half' } as RequestInit)
}

async function expectUnavailable (response: Response): Promise<void> {
  const body = await response.json() as Record<string, unknown>
  expect(response.status, JSON.stringify(body)).toBe(503)
  expect(body).toMatchObject({ ok: false, code: 'database_unavailable' })
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
}

// CONTRACT.md 12: a dependency failing while a multipart body is read is the dependency's 503, never the client's 422.
describe('a database fault during a multipart upload or send', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), SERVICE_WINDOW_CHECK: 'off' } })

  it('recording the upload fails as the database does: 503 with Retry-After', async () => {
    const lost = Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' })
    const insert = vi.spyOn(ctx.gateway.app.media, 'insert').mockRejectedValue(lost)
    try {
      for (const parts of [[['file', pdf()]], [['phone_number_id', ctx.workspace.connection.phone_numbers[0].phone_number_id], ['file', { bytes: sampleFile('image').bytes, filename: 'a.png' }]]] as Part[][]) {
        await expectUnavailable(await fetch(`${ctx.gateway.url}/api/media.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization }, body: form(parts) }))
      }
      await expectUnavailable(await fetch(`${ctx.gateway.url}/api/messages.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization }, body: form([['to', TO], ['type', 'document'], ['file', pdf()]]) }))
    } finally {
      insert.mockRestore()
    }
    expect((await upload(ctx.gateway, ctx.workspace.authorization, [['file', pdf()]])).body).toMatchObject({ ok: true })
  })
})

// Only PostgreSQL can be taken away from a running gateway (fault proxy): PGlite lives in its process.
describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL cut while a multipart upload or send is read', () => {
  const ctx = useFaultyGateway({ env: { MEDIA_DIR: useMediaDir(), SERVICE_WINDOW_CHECK: 'off' } })
  const cut = () => { ctx.gateway.databaseProxy!.cut() }

  it.each([
    ['POST /api/media.php', '/api/media.php', [['file', pdf()]]],
    ['a one-call send', '/api/messages.php', [['to', TO], ['type', 'document'], ['file', pdf()]]]
  ] as Array<[string, string, Part[]]>)('%s answers 503 database_unavailable with Retry-After, then works once it is back', async (_name, path, parts) => {
    const url = `${ctx.gateway.url}${path}`
    try {
      await expectUnavailable(await postInHalves(url, ctx.workspace.authorization, parts, cut))
    } finally {
      ctx.gateway.databaseProxy!.heal()
    }
    await vi.waitFor(async () => {
      const response = await fetch(url, { method: 'POST', headers: { authorization: ctx.workspace.authorization }, body: form(parts) })
      expect(response.status).toBe(200)
    }, { timeout: 10_000, interval: 250 })
  })
})
