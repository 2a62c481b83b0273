import { defaultAccount } from '../src/sandbox/emulator/index.js'

/** The emulator's messages endpoint for its first number, and the headers its access token needs. */
export function messagesEndpoint (graphApiUrl: string): { origin: string, path: string, headers: Record<string, string> } {
  const upstream = new URL(graphApiUrl)
  const account = defaultAccount()
  return {
    origin: upstream.origin,
    path: `${upstream.pathname.replace(/\/+$/, '')}/${account.phoneNumbers[0].id}/messages`,
    headers: { authorization: `Bearer ${account.accessToken}`, 'content-type': 'application/json' }
  }
}

/** A text message as the upstream takes it, the body every server under test sends. */
export function textMessage (to: string, body: string): Record<string, unknown> {
  return { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body } }
}
