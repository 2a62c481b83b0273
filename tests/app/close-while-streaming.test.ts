import { request, Agent } from 'node:http'
import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { useMediaDir } from '../media/helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
// Fastify's keep-alive timeout: a connection left open after its response waits this long
const KEEP_ALIVE_MS = 72_000

/**
 * A download still streaming when the gateway is told to stop: it is served whole, and the close
 * does not then wait for the client's keep-alive connection to time out (it used to, in about half
 * the runs of tests/media/checksum.test.ts, for 72 s).
 */
describe('closing while a response streams', () => {
  const ctx = useGateway({ env: { MEDIA_DIR: useMediaDir(), MEDIA_MIRROR: 'off' } })

  it('serves the file whole and closes without waiting for the keep-alive connection', async () => {
    const bytes = Buffer.alloc(8 * 1024 * 1024, 7)
    const { mediaId } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557654321', media: { bytes, mimeType: 'application/pdf' } })
    await waitFor(async () => await ctx.gateway.app.media.find(ctx.workspace.workspaceId, mediaId!), { what: 'the inbound media recorded' })

    const agent = new Agent({ keepAlive: true })
    let closed: Promise<unknown> | undefined
    const closedAt: number[] = []
    const received = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = []
      request(`${ctx.gateway.url}/api/media.php?id=${mediaId!}&download=1`, { agent, headers: { authorization: ctx.workspace.authorization } }, (response) => {
        expect(response.statusCode).toBe(200)
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          if (closed) return
          // the first bytes are here, the rest still to come: stop the gateway now
          response.pause()
          const started = Date.now()
          closed = ctx.gateway.app.close().then(() => closedAt.push(Date.now() - started))
          setTimeout(() => response.resume(), 200)
        })
        response.on('end', () => resolve(Buffer.concat(chunks)))
        response.on('error', reject)
      }).on('error', reject).end()
    })
    expect(received.equals(bytes)).toBe(true)
    await Promise.race([closed, new Promise(resolve => setTimeout(resolve, KEEP_ALIVE_MS / 2))])
    expect(closedAt).toHaveLength(1)
    agent.destroy()
  }, KEEP_ALIVE_MS)
})
