import type { FastifyInstance } from 'fastify'
import type { Emulator } from './emulator/index.js'
import { pngImage } from './sample-media.js'

/** A customer of the demo, who writes first (so the reply is inside the service window). */
export const DEMO_CUSTOMER = '15557654321'

export interface DemoMedia { inboundMediaId: string, uploadedMediaId: string, wamid: string }

/**
 * What media look like with no Meta account: a customer sends a photo (the mirror stores it, the
 * dashboard's Inbound page shows it), and the demo replies with an image uploaded through
 * POST /api/media.php, then sent by its media id.
 */
export async function demoMedia (app: FastifyInstance, emulator: Emulator, phoneNumberId: string, secret: string): Promise<DemoMedia> {
  const { mediaId } = await emulator.injectInbound({ phoneNumberId, from: DEMO_CUSTOMER, media: { bytes: pngImage(96, 64, 21), mimeType: 'image/png', caption: 'The lid arrived cracked' } })
  const form = new FormData()
  form.append('file', new Blob([pngImage(96, 64, 5)], { type: 'image/png' }), 'replacement.png')
  const multipart = new Response(form)
  const authorization = `Bearer ${secret}`
  const uploaded = await app.inject({
    method: 'POST', url: '/api/media.php', headers: { authorization, 'content-type': multipart.headers.get('content-type')! }, payload: Buffer.from(await multipart.arrayBuffer())
  })
  if (uploaded.statusCode !== 200) throw new Error(`the demo upload answered ${uploaded.statusCode}: ${uploaded.body}`)
  const uploadedMediaId = uploaded.json<{ media_id: string }>().media_id
  const sent = await app.inject({
    method: 'POST', url: '/api/messages.php', headers: { authorization, 'content-type': 'application/json' },
    payload: { to: DEMO_CUSTOMER, type: 'image', media_id: uploadedMediaId, caption: 'Sorry! A replacement is on its way.' }
  })
  if (sent.statusCode !== 200) throw new Error(`the demo image send answered ${sent.statusCode}: ${sent.body}`)
  return { inboundMediaId: mediaId!, uploadedMediaId, wamid: sent.json<{ wamid: string }>().wamid }
}

export function mediaLine (media: DemoMedia): string {
  return `[media] a customer (+${DEMO_CUSTOMER}) sent a photo (media ${media.inboundMediaId}: mirrored, see Dashboard → Inbound); ` +
    `the demo replied with an image uploaded as media ${media.uploadedMediaId} and sent by id (${media.wamid})`
}
