import { Transform } from 'node:stream'

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf])

/**
 * The first bytes of a file meant to be UTF-8: a UTF-8 byte order mark is taken off; a UTF-16 (or
 * UTF-32) one fails the stream with `refuse`'s error. The rest passes as it comes.
 */
export function utf8Start (refuse: (reason: string) => Error): Transform {
  let head: Buffer | undefined = Buffer.alloc(0)
  function settle (this: Transform, bytes: Buffer): Error | undefined {
    head = undefined
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return refuse('it starts with a UTF-16 byte order mark')
    this.push(bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes)
    return undefined
  }
  return new Transform({
    transform (chunk: Buffer, _encoding, done) {
      if (head === undefined) { done(null, chunk); return }
      head = Buffer.concat([head, chunk])
      done(head.length < UTF8_BOM.length ? null : settle.call(this, head))
    },
    flush (done) {
      done(head === undefined || head.length === 0 ? null : settle.call(this, head))
    }
  })
}
