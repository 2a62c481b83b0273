import { connect } from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string[]>
  body: string
}

/**
 * One request written byte for byte on its own connection: no client library to refuse a NUL, a lone
 * surrogate's bytes, a malformed escape or a repeated header before the server sees them.
 */
export async function rawRequest (url: string, request: { method?: string, target: string, headers?: [string, string | Buffer][], body?: Buffer | string, timeoutMs?: number }): Promise<RawResponse> {
  const { hostname, port } = new URL(url)
  const head = Buffer.concat([
    Buffer.from(`${request.method ?? 'GET'} `, 'latin1'),
    Buffer.from(request.target, 'latin1'),
    Buffer.from(' HTTP/1.1\r\n', 'latin1'),
    ...[['host', `${hostname}:${port}`] as [string, string], ...(request.headers ?? []), ['connection', 'close'] as [string, string]]
      .map(([name, value]) => Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n')])),
    Buffer.from('\r\n')
  ])
  return await new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer within ${request.timeoutMs ?? 15000} ms: ${request.target.slice(0, 200)}`)) }, request.timeoutMs ?? 15000)
    socket.on('data', chunk => chunks.push(chunk))
    socket.on('error', error => { clearTimeout(timer); reject(error) })
    socket.on('close', () => {
      clearTimeout(timer)
      try { resolve(parseResponse(Buffer.concat(chunks))) } catch (error) { reject(error) }
    })
    socket.write(head)
    if (request.body !== undefined) socket.write(request.body)
  })
}

function parseResponse (bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`no complete response (${bytes.length} bytes)`)
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1])
  const headers: Record<string, string[]> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim())
  }
  let body = bytes.subarray(end + 4)
  if (headers['transfer-encoding']?.[0] === 'chunked') body = unchunk(body)
  return { status, headers, body: body.toString('utf8') }
}

function unchunk (bytes: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf('\r\n', at)
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16)
    if (!size) break
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}
