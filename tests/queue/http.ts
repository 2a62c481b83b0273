import { request } from 'node:http'

/** POST /api/messages.php with `Prefer: respond-async` to a spawned server, on a connection of its own; resolves with the status, 0 when the connection broke. */
export async function handOverTo (base: string, authorization: string, body: Record<string, unknown>): Promise<number> {
  return await new Promise(resolve => {
    const call = request(`${base}/api/messages.php`, { method: 'POST', agent: false, headers: { authorization, 'content-type': 'application/json', prefer: 'respond-async' } }, response => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    })
    call.on('error', () => resolve(0))
    call.end(JSON.stringify(body))
  })
}
