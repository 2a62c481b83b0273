import { request, type IncomingHttpHeaders } from 'node:http'

export interface Answer { status: number, headers: IncomingHttpHeaders, body: string }

/**
 * A POST on a connection of its own: none is shared with the emulator's webhooks or left behind to
 * hold a server's close. Status 0 when the connection broke, as a client of a killed server sees it.
 */
export async function postOwn (url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return await new Promise(resolve => {
    const broken = () => resolve({ status: 0, headers: {}, body: '' })
    const call = request(url, { method: 'POST', agent: false, headers }, response => {
      let text = ''
      response.on('data', chunk => { text += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
      response.on('error', broken)
    })
    call.on('error', broken)
    call.end(body)
  })
}
