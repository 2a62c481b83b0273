import { defaultAccount, startEmulator } from '../../src/sandbox/emulator/index.js'
import { pngImage } from '../../src/sandbox/sample-media.js'
import { serve } from '../child.js'

// The upstream of bench/media.ts in a process of its own: it receives the uploads (held in memory
// until `reset`) and sends the customers' images whose mirroring is measured.
const emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, webhookRetries: [200, 400, 800, 1600, 3200] })
const account = defaultAccount()
const injected: string[] = []

serve({
  /** registers the gateway's callback (the real handshake: the gateway answers it with its verify token) */
  subscribe: async (callback: string, verifyToken: string) => {
    const response = await fetch(`${emulator.url}/${account.wabaId}/subscribed_apps`, {
      method: 'POST', headers: { authorization: `Bearer ${account.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ override_callback_uri: callback, verify_token: verifyToken })
    })
    if (!response.ok) throw new Error(`subscribing the gateway answered ${response.status}: ${await response.text()}`)
  },
  /** `count` customers' images, each of its own bytes, `concurrency` webhooks in flight */
  injectImages: async (count: number, concurrency: number) => {
    let next = 0
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++
        const { mediaId } = await emulator.injectInbound({ phoneNumberId: account.phoneNumbers[0].id, from: `1555${String(1_000_000 + index)}`, media: { bytes: pngImage(16 + index % 50, 16 + Math.floor(index / 50), index % 7), mimeType: 'image/png' } })
        injected.push(mediaId!)
      }
    }))
  },
  /** downloads of the injected images: their sum, the most any one had, and how many were never fetched */
  downloads: () => {
    const counts = injected.map(id => emulator.media(id)?.downloads ?? 0)
    return { total: counts.reduce((sum, count) => sum + count, 0), most: Math.max(0, ...counts), never: counts.filter(count => count === 0).length }
  },
  reset: () => { emulator.reset(); injected.length = 0 }
}, { url: emulator.url, appSecret: emulator.appSecret, token: account.accessToken, phoneNumberId: account.phoneNumbers[0].id })
