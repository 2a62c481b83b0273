import type { InboundMediaView } from '../../media/inbound.js'
import { html, type SafeHtml } from '../html.js'

// Shown inline only as these types: a customer's bytes served on the dashboard's origin must never be HTML or SVG.
export const INLINE_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp'])

/** An inbound file in the list: an image the mirror holds inline, every file as a download (through the session). */
export function inboundMedia (type: string, media: InboundMediaView): SafeHtml {
  const href = `/dashboard/inbound/media/${encodeURIComponent(media.id)}`
  const inline = type === 'image' && media.stored && INLINE_IMAGE_TYPES.has(media.mime_type ?? '')
  const label = [media.filename ?? type, media.mime_type, media.file_size === null ? undefined : size(media.file_size)].filter(Boolean).join(' · ')
  return html`<figure class="inbound-media">
  ${inline && html`<img src="${href}" alt="${media.caption ?? 'Image sent by the customer'}" loading="lazy" data-media-id="${media.id}">`}
  ${media.caption && html`<figcaption>${media.caption}</figcaption>`}
  <a href="${href}?download=1" download>Download ${label}</a>
</figure>`
}

function size (bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
