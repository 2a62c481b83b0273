import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileTooLarge, unsupportedMedia } from '../errors.js'
import { sizeLabel, sizeLimit } from './kinds.js'
import { sniff, SNIFF_BYTES, type Declared, type Sniffed } from './sniff.js'
import type { MediaStorage, Spool } from './storage.js'

/** A checked file whose bytes have all been read: its type, size and SHA-256 (lowercase hex). */
export interface CheckedFile extends Sniffed { size: number, sha256: string, filename?: string }

/** A file being read: its type is known (from its first bytes), its size and SHA-256 once `bytes()` has ended. */
export interface CheckedStream {
  sniffed: Sniffed
  filename?: string
  /** every byte, counted and hashed; throws (413, 422) as soon as the file passes its kind's limit */
  bytes(): AsyncGenerator<Buffer>
  /** once bytes() has ended */
  checked(): CheckedFile
  /** reads and drops what is left (after a refusal, so the answer reaches the client) */
  drain(): Promise<void>
}

/**
 * Reads a file part's first bytes (up to SNIFF_BYTES), decides its type from them (sniff.ts) and
 * hands back the rest as a stream that enforces the kind's size limit and MEDIA_MAX_BYTES: the
 * whole file is never held in memory.
 */
export async function openChecked (source: Readable, declared: Declared, maxBytes: number): Promise<CheckedStream> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const drain = async () => { while (!(await iterator.next()).done) { /* dropped */ } }
  const head: Buffer[] = []
  let sampled = 0
  let ended = false
  while (sampled < SNIFF_BYTES) {
    const next = await iterator.next()
    if (next.done) { ended = true; break }
    head.push(next.value)
    sampled += next.value.length
  }
  const sample = Buffer.concat(head)
  let sniffed: Sniffed
  try {
    sniffed = await sniff(sample, ended, declared)
  } catch (error) {
    if (!ended) await drain()
    throw error
  }
  const kindLimit = sizeLimit(sniffed.kind, sniffed.animated)
  const hash = createHash('sha256')
  let size = 0
  let result: CheckedFile | undefined
  const count = (chunk: Buffer) => {
    size += chunk.length
    if (size > maxBytes && kindLimit.bytes >= maxBytes) throw fileTooLarge(sizeLabel(maxBytes))
    if (size > kindLimit.bytes) throw unsupportedMedia(`The file is larger than ${kindLimit.label}, the limit for ${sniffed.animated ? 'an animated sticker' : sniffed.kind === 'sticker' ? 'a static sticker' : `${sniffed.kind === 'image' || sniffed.kind === 'audio' ? 'an' : 'a'} ${sniffed.kind}`} (${sniffed.mime})`)
    hash.update(chunk)
  }
  return {
    sniffed,
    filename: declared.filename,
    async * bytes () {
      count(sample)
      yield sample
      for (let next = ended ? undefined : await iterator.next(); next && !next.done; next = await iterator.next()) {
        count(next.value)
        yield next.value
      }
      result = { ...sniffed, size, sha256: hash.digest('hex'), filename: declared.filename }
    },
    checked () {
      if (!result) throw new Error('the file has not been read to its end')
      return result
    },
    drain
  }
}

/** A checked file spooled to storage (read again to upload it): all checks done before anything goes upstream. */
export interface SpooledFile { file: CheckedFile, spool: Spool }

export async function spoolChecked (stream: CheckedStream, storage: MediaStorage): Promise<SpooledFile> {
  const spool = await storage.spool()
  try {
    await pipeline(Readable.from(stream.bytes(), { objectMode: false }), spool.writable())
  } catch (error) {
    await spool.discard()
    await stream.drain().catch(() => {})
    throw error
  }
  return { file: stream.checked(), spool }
}

/**
 * A file part that came before the message's type: spooled as it arrived, unread (nothing sniffed
 * for a message that may take no file), until the type says the message takes it.
 */
export interface HeldFile { spool: Spool, declared: Declared }

export async function holdFile (source: Readable, declared: Declared, storage: MediaStorage, maxBytes: number): Promise<HeldFile> {
  const spool = await storage.spool()
  let size = 0
  // not destroyed when the limit stops the copy: the rest is read and dropped, so that the answer reaches the client
  async function * bounded (): AsyncGenerator<Buffer> {
    for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > maxBytes) throw fileTooLarge(sizeLabel(maxBytes))
      yield chunk
    }
  }
  try {
    await pipeline(Readable.from(bounded(), { objectMode: false }), spool.writable())
  } catch (error) {
    await spool.discard()
    source.resume()
    throw error
  }
  return { spool, declared }
}

/** A held file checked as an arriving one is (its type from its content, its kind's limits), read back from its spool. */
export async function checkHeld (held: HeldFile, maxBytes: number): Promise<SpooledFile> {
  const source = held.spool.readable()
  try {
    const stream = await openChecked(source, held.declared, maxBytes)
    for await (const _chunk of stream.bytes()) { /* counted and hashed */ }
    return { file: stream.checked(), spool: held.spool }
  } finally {
    source.destroy()
  }
}
