import { crc32, deflateSync } from 'node:zlib'

export type SampleKind = 'image' | 'video' | 'audio' | 'document' | 'sticker'

export interface SampleFile { bytes: Buffer, mimeType: string, filename: string }

/**
 * A real PNG (8-bit RGB) of the given size: a diagonal gradient around Outbound's green, so that a
 * browser draws it. Used by the sandbox's demo, the emulator's default inbound image and tests.
 */
export function pngImage (width = 48, height = 48, seed = 0): Buffer {
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const pixels = Buffer.alloc(width * 3)
    for (let x = 0; x < width; x++) {
      pixels[x * 3] = (37 + x * 4 + seed) & 0xff
      pixels[x * 3 + 1] = (160 + y * 2) & 0xff
      pixels[x * 3 + 2] = (90 + (x + y) * 2 + seed * 7) & 0xff
    }
    // filter 1 (Sub): each byte as the difference to the pixel on its left, which a gradient keeps constant
    const row = Buffer.alloc(1 + width * 3)
    row[0] = 1
    for (let i = 0; i < pixels.length; i++) row[1 + i] = (pixels[i] - (i >= 3 ? pixels[i - 3] : 0)) & 0xff
    rows.push(row)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // bit depth 8, colour type RGB, deflate, no filter, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))])
}

function chunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** An ISO BMFF box (MP4, 3GP). */
function box (type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8)
  header.writeUInt32BE(8 + body.length)
  header.write(type, 4, 'latin1')
  return Buffer.concat([header, body])
}

/** The start of an Ogg page holding an Opus head: what a voice note begins with. */
function oggOpus (): Buffer {
  const head = Buffer.concat([Buffer.from('OpusHead', 'latin1'), Buffer.from([1, 1, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0])])
  const page = Buffer.alloc(27)
  page.write('OggS', 0, 'latin1')
  page[5] = 2 // beginning of stream
  page[26] = 1 // one segment
  return Buffer.concat([page, Buffer.from([head.length]), head])
}

/** A WebP of the given shape: `animated` sets the VP8X animation flag. Only its header is real: enough for type detection. */
export function webpSticker (animated = false, size = 2048): Buffer {
  const body = animated
    ? Buffer.concat([Buffer.from('VP8X', 'latin1'), Buffer.from([10, 0, 0, 0, 0x02, 0, 0, 0, 0xff, 0x01, 0, 0xff, 0x01, 0])])
    : Buffer.concat([Buffer.from('VP8 ', 'latin1'), Buffer.alloc(4)])
  const riff = Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.alloc(4), Buffer.from('WEBP', 'latin1'), body, Buffer.alloc(Math.max(0, size - 12 - body.length))])
  riff.writeUInt32LE(riff.length - 8, 4)
  return riff
}

/**
 * A small file of each kind that content sniffing recognises (a real PNG; for the others their
 * format's header and some padding).
 */
export function sampleFile (kind: SampleKind): SampleFile {
  switch (kind) {
    case 'image': return { bytes: pngImage(), mimeType: 'image/png', filename: 'photo.png' }
    case 'video': return { bytes: Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2avc1mp41', 'latin1')), box('free', Buffer.alloc(0)), box('mdat', Buffer.alloc(1024))]), mimeType: 'video/mp4', filename: 'clip.mp4' }
    case 'audio': return { bytes: Buffer.concat([oggOpus(), Buffer.alloc(1024)]), mimeType: 'audio/ogg', filename: 'voice.ogg' }
    case 'document': return { bytes: Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1'), mimeType: 'application/pdf', filename: 'invoice.pdf' }
    case 'sticker': return { bytes: webpSticker(), mimeType: 'image/webp', filename: 'sticker.webp' }
  }
}
