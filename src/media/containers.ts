import { TextDecoder } from 'node:util'

const CFB_TYPES: ReadonlyArray<[string, string]> = [
  ['WordDocument', 'application/msword'],
  ['Workbook', 'application/vnd.ms-excel'],
  ['Book', 'application/vnd.ms-excel'],
  ['PowerPoint Document', 'application/vnd.ms-powerpoint']
]

/**
 * An OLE compound file (old .doc, .xls, .ppt) names its main stream in its directory: read the
 * directory entries that lie within `bytes`. undefined when none is there (the directory can sit
 * anywhere in the file).
 */
export function compoundFileType (bytes: Buffer): string | undefined {
  if (bytes.length < 512) return undefined
  const sectorSize = 1 << bytes.readUInt16LE(0x1e)
  if (sectorSize !== 512 && sectorSize !== 4096) return undefined
  const start = (bytes.readInt32LE(0x30) + 1) * sectorSize
  for (let entry = start; entry >= 512 && entry + 128 <= bytes.length; entry += 128) {
    const length = bytes.readUInt16LE(entry + 0x40)
    if (length < 2 || length > 64) continue
    const name = bytes.toString('utf16le', entry, entry + length - 2)
    const found = CFB_TYPES.find(([stream]) => stream === name)
    if (found) return found[1]
  }
  return undefined
}

/** An animated WebP says so in its VP8X header's flags (or has an ANIM chunk). */
export function isAnimatedWebp (bytes: Buffer): boolean {
  if (bytes.toString('latin1', 12, 16) === 'VP8X' && bytes.length > 20 && (bytes[20] & 0x02) !== 0) return true
  return bytes.includes('ANIM', 12, 'latin1')
}

// Controls that text files do not hold: all but tab, line feed, vertical tab, form feed, carriage return and escape.
const BINARY = /[\x00-\x08\x0e-\x1a\x1c-\x1f]/

/**
 * Plain text has no magic bytes: the sample must be UTF-8 without binary controls. `complete` is
 * false when the sample is the start of a longer file, whose last character may be cut short.
 */
export function looksLikeText (sample: Buffer, complete: boolean): boolean {
  if (sample.length === 0) return false
  let bytes = sample
  if (!complete) {
    // drop a multi-byte sequence cut at the sample's end
    let cut = bytes.length
    for (let back = 1; back <= 3 && back <= bytes.length; back++) {
      const byte = bytes[bytes.length - back]
      if ((byte & 0xc0) === 0xc0) { cut = bytes.length - back; break }
      if ((byte & 0x80) === 0) break
    }
    bytes = bytes.subarray(0, cut)
  }
  try {
    return !BINARY.test(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    return false
  }
}
