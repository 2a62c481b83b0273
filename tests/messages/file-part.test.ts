import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sampleFile } from '../../src/sandbox/sample-media.js'
import { sendParts, type Part } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { uploadsSeen, useMediaDir } from '../media/helpers.js'
import { RECIPIENT } from './helpers.js'

// A type WhatsApp does not take: on a media message this file is unsupported_media.
const NOT_MEDIA = { bytes: Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64, 0x20)]), filename: 'wave.gif', type: 'image/gif' }

/**
 * CONTRACT.md 2: a multipart send takes a file part only for a media message (section 13); on any
 * other message the file is the request's mistake, whatever the file holds: 422 invalid_request
 * naming file, decided from the type and never by reading the file.
 */
describe('POST /api/messages.php: a file part on a message that takes none', () => {
  const mediaDir = useMediaDir()
  const ctx = useGateway({ env: { MEDIA_DIR: mediaDir, SERVICE_WINDOW_CHECK: 'off' } })

  const send = async (parts: Part[]) => await sendParts(ctx.gateway, ctx.workspace.authorization, parts)
  const spools = () => existsSync(join(mediaDir, 'tmp')) ? readdirSync(join(mediaDir, 'tmp')).length : 0

  it.each<[string, Part[], string]>([
    ['type=text before the file', [['to', RECIPIENT], ['type', 'text'], ['body', 'hi'], ['file', NOT_MEDIA]], 'text'],
    ['type=text after the file', [['file', NOT_MEDIA], ['to', RECIPIENT], ['type', 'text'], ['body', 'hi']], 'text'],
    ['no type (text by default)', [['to', RECIPIENT], ['body', 'hi'], ['file', NOT_MEDIA]], 'text'],
    ['no type, the file first', [['file', NOT_MEDIA], ['to', RECIPIENT], ['body', 'hi']], 'text'],
    ['a template, the file first', [['file', NOT_MEDIA], ['to', RECIPIENT], ['type', 'template'], ['template', 'hello_world']], 'template'],
    ['an interactive message', [['to', RECIPIENT], ['type', 'interactive'], ['file', NOT_MEDIA]], 'interactive']
  ])('%s: 422 invalid_request naming file, nothing uploaded or sent', async (_case, parts, type) => {
    const before = { uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }
    const { status, body } = await send(parts)
    expect(status, JSON.stringify(body)).toBe(422)
    expect(body).toMatchObject({ ok: false, code: 'invalid_request', field: 'file' })
    expect(body.error).toContain(`not for type ${type}`)
    expect({ uploads: uploadsSeen(ctx.gateway), sent: ctx.gateway.emulator.sentMessages.length }).toEqual(before)
  })

  it('a file that came before the type is not kept once the type says text', async () => {
    await send([['file', { bytes: randomBytes(256 * 1024), filename: 'noise.bin' }], ['to', RECIPIENT], ['type', 'text'], ['body', 'hi']])
    expect(spools()).toBe(0)
  })

  it('the type before the file decides at the file part\'s head: the answer comes before the file is sent', async () => {
    const { hostname, port } = new URL(ctx.gateway.url)
    const boundary = `----outbound${randomBytes(8).toString('hex')}`
    const head = [['to', RECIPIENT], ['type', 'text'], ['body', 'hi']]
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname)
      let text = ''
      const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer before the file was sent (got ${JSON.stringify(text)})`)) }, 5000)
      socket.on('error', () => {})
      socket.on('data', chunk => {
        text += chunk.toString('utf8')
        const end = text.indexOf('\r\n\r\n')
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1])
        if (end >= 0 && text.length >= end + 4 + length) { clearTimeout(timer); socket.destroy(); resolve(text) }
      })
      // the file part announced (8 MiB to come) and only its first bytes sent: a sniffer would wait for more
      socket.write(`POST /api/messages.php HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: ${ctx.workspace.authorization}\r\n` +
        `content-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${Buffer.byteLength(head) + 8 * 1024 * 1024}\r\n\r\n${head}`)
      socket.write(sampleFile('image').bytes.subarray(0, 16))
    })
    expect(answer).toMatch(/^HTTP\/1\.1 422 /)
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'invalid_request', field: 'file' })
  })

  it('a media message still takes its file, before or after the type', async () => {
    const image = sampleFile('image')
    for (const parts of [
      [['to', RECIPIENT], ['type', 'image'], ['file', { bytes: image.bytes, filename: image.filename, type: image.mimeType }]],
      [['file', { bytes: image.bytes, filename: image.filename, type: image.mimeType }], ['to', RECIPIENT], ['type', 'image']]
    ] as Part[][]) {
      const { status, body } = await send(parts)
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body).toMatchObject({ ok: true, status: 'sent', media_id: expect.stringMatching(/^\d+$/) })
    }
  })

  it('a media message with the file first still has it checked: a GIF is unsupported_media', async () => {
    const { status, body } = await send([['file', NOT_MEDIA], ['to', RECIPIENT], ['type', 'document']])
    expect(status, JSON.stringify(body)).toBe(422)
    expect(body).toMatchObject({ code: 'unsupported_media', field: 'file' })
  })
})
