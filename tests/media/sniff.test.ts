import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { sniff } from '../../src/media/sniff.js'
import { sampleFile, webpSticker } from '../../src/sandbox/sample-media.js'

/** A ZIP with stored or deflated entries (local headers only: what a sniffer reads first). */
function zip (entries: Array<[string, string]>): Buffer {
  return Buffer.concat(entries.map(([name, text]) => {
    const data = deflateRawSync(Buffer.from(text))
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(8, 8) // deflate
    header.writeUInt32LE(data.length, 18)
    header.writeUInt32LE(Buffer.byteLength(text), 22)
    header.writeUInt16LE(Buffer.byteLength(name), 26)
    return Buffer.concat([header, Buffer.from(name), data])
  }))
}

/** An OLE compound file whose directory (sector 1) names `stream`. */
function compoundFile (stream: string): Buffer {
  const file = Buffer.alloc(512 * 3)
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(file)
  file.writeUInt16LE(9, 0x1e) // 512-byte sectors
  file.writeInt32LE(1, 0x30) // the directory starts at sector 1 (offset 1024)
  const entry = (at: number, name: string) => {
    file.write(name, at, 'utf16le')
    file.writeUInt16LE((name.length + 1) * 2, at + 0x40)
  }
  entry(1024, 'Root Entry')
  entry(1024 + 128, stream)
  return file
}

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
const CONTENT_TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'

describe('sniff: the type from the content', () => {
  it('knows each sample by its bytes', async () => {
    for (const kind of ['image', 'video', 'audio', 'document', 'sticker'] as const) {
      expect((await sniff(sampleFile(kind).bytes, true, {})).kind).toBe(kind)
    }
    expect(await sniff(webpSticker(true), true, {})).toEqual({ mime: 'image/webp', kind: 'sticker', animated: true })
  })

  it('reads old Office files by their directory, and lets the name decide when the directory lies further', async () => {
    expect((await sniff(compoundFile('WordDocument'), true, {})).mime).toBe('application/msword')
    expect((await sniff(compoundFile('Workbook'), true, { filename: 'q3.xls' })).mime).toBe('application/vnd.ms-excel')
    await expect(sniff(compoundFile('PowerPoint Document'), true, { filename: 'deck.doc' })).rejects.toThrow(/declared as application\/msword but its content is application\/vnd.ms-powerpoint/)
    const farDirectory = compoundFile('WordDocument')
    farDirectory.writeInt32LE(400, 0x30)
    expect((await sniff(farDirectory, false, { filename: 'old.doc' })).mime).toBe('application/msword')
    await expect(sniff(farDirectory, false, {})).rejects.toThrow(/application\/x-cfb/)
  })

  it('reads OOXML from its [Content_Types].xml; a bare ZIP goes only as the Office type it is declared', async () => {
    expect((await sniff(zip([['[Content_Types].xml', CONTENT_TYPES], ['word/document.xml', '<w/>']]), true, {})).mime).toBe(DOCX)
    const bare = zip([['a.txt', 'hello']])
    await expect(sniff(bare, true, { filename: 'a.zip' })).rejects.toThrow(/application\/zip/)
    expect((await sniff(bare, true, { filename: 'report.xlsx' })).mime).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
  })

  it('takes UTF-8 text, also cut in the middle of a character, and refuses binary noise', async () => {
    const text = Buffer.from('Grüße aus Köln — 東京\n')
    expect((await sniff(text.subarray(0, text.length - 2), false, {})).mime).toBe('text/plain')
    expect((await sniff(text, true, { contentType: 'text/csv' })).mime).toBe('text/plain')
    await expect(sniff(Buffer.from('abc\x00def'), true, {})).rejects.toThrow(/application\/octet-stream/)
    await expect(sniff(Buffer.from('hello'), true, { contentType: 'image/png' })).rejects.toThrow(/declared as image\/png but its content is text\/plain/)
  })

  it('takes Ogg audio only with Opus, and an MP4 declared as audio as audio/mp4', async () => {
    const vorbis = Buffer.concat([Buffer.from('OggS\0\x02', 'latin1'), Buffer.alloc(20), Buffer.from([1, 30]), Buffer.from('\x01vorbis', 'latin1'), Buffer.alloc(100)])
    await expect(sniff(vorbis, true, {})).rejects.toThrow(/audio\/ogg \(not Opus\)/)
    expect(await sniff(sampleFile('video').bytes, true, { filename: 'voice.m4a' })).toMatchObject({ mime: 'audio/mp4', kind: 'audio' })
    await expect(sniff(sampleFile('video').bytes, true, { contentType: 'video/3gpp' })).rejects.toThrow(/declared as video\/3gpp/)
  })

  it('treats aliases and generic types as what they are', async () => {
    expect((await sniff(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, ...new Array(64).fill(0)]), true, { contentType: 'image/jpg', filename: 'a.JPEG' })).mime).toBe('image/jpeg')
    expect((await sniff(sampleFile('image').bytes, true, { contentType: 'application/octet-stream', filename: 'upload' })).mime).toBe('image/png')
  })
})
