import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import type { TestGateway } from '../helpers/gateway.js'
import { form, type Part } from '../helpers/send.js'

/** A MEDIA_DIR of the enclosing describe's own, removed after it. */
export function useMediaDir (): string {
  const dir = mkdtempSync(join(tmpdir(), 'outbound-media-'))
  afterAll(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

/** A multipart body sent chunked (no Content-Length), as a streaming client would. */
export async function postChunked (url: string, authorization: string, parts: Part[]): Promise<Response> {
  const request = new Request(url, { method: 'POST', body: form(parts) })
  const type = request.headers.get('content-type')!
  const bytes = Buffer.from(await request.arrayBuffer())
  const stream = new ReadableStream({
    start (controller) {
      for (let at = 0; at < bytes.length; at += 65536) controller.enqueue(bytes.subarray(at, at + 65536))
      controller.close()
    }
  })
  return await fetch(url, { method: 'POST', headers: { authorization, 'content-type': type }, body: stream, duplex: 'half' } as RequestInit)
}

export async function upload (gateway: TestGateway, authorization: string, parts: Part[]): Promise<{ status: number, body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}/api/media.php`, { method: 'POST', headers: { authorization }, body: form(parts) })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

/** Requests that reached the emulator's upload endpoint. */
export function uploadsSeen (gateway: TestGateway): number {
  return gateway.emulator.requests.filter(request => request.method === 'POST' && /\/media$/.test(request.path)).length
}

/** A buffer of `size` bytes that starts like the given file. */
export function padded (start: Buffer, size: number): Buffer {
  return Buffer.concat([start, Buffer.alloc(Math.max(0, size - start.length), 0x20)])
}
