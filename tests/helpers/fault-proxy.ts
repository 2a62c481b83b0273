import { createServer, connect, type Server, type Socket } from 'node:net'

export interface FaultProxy {
  /** 127.0.0.1:port where the proxy listens */
  readonly port: number
  /** the given URL (postgres://…, redis://…) with its host and port replaced by the proxy's */
  url (target: string): string
  /** Refuses new connections (reset at once) and resets every open one, both ways. */
  cut (): void
  /** Lets connections through again (and ends loseReply). */
  heal (): void
  /**
   * A lost acknowledgement: from the next message the client sends that `trigger` matches (every
   * message when omitted), or with `then` from the first message matching `then` at or after one
   * matching `trigger` (an insert, then its transaction's commit), that connection still forwards
   * the client's bytes to the server, which acts on them (a statement runs, a commit commits), but
   * drops the server's replies: the client waits on until a cut. Armed on every connection, open
   * and new, until heal. To PostgreSQL a message is matched as its type letter and its statement's
   * text: `Q…` a simple query, `P…` a statement prepared, `B…` a statement run (by name too: the
   * proxy remembers what each connection prepared, so a `commit` prepared before is still seen).
   * To anything else (Redis, HTTP) each chunk is one message, as latin1.
   */
  loseReply (trigger?: RegExp, then?: RegExp): void
  readonly isCut: boolean
  close (): Promise<void>
}

/**
 * A TCP proxy in front of a dependency (PostgreSQL at 127.0.0.1:5432, Redis at 127.0.0.1:6379) that
 * can cut and heal: the tests' way of taking a dependency away from a running gateway without ever
 * stopping the machine's own services. A cut resets sockets (RST), as a crashed server or a broken
 * network path does; clients see ECONNRESET, or a closed connection, at once.
 */
export async function startFaultProxy (target: { host?: string, port: number }): Promise<FaultProxy> {
  const host = target.host ?? '127.0.0.1'
  const open = new Set<Socket>()
  let cut = false
  let loseAfter: { trigger: RegExp, then?: RegExp } | undefined

  const server: Server = createServer({ noDelay: true }, client => {
    if (cut) { client.resetAndDestroy(); return }
    const upstream = connect({ host, port: target.port, noDelay: true })
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on('close', () => open.delete(socket))
      socket.on('error', () => { client.destroy(); upstream.destroy() })
    }
    // the replies are dropped once a message of the client's matched while loseReply was armed
    let deaf = false
    let primed = false
    const messages = clientMessages()
    client.on('data', chunk => {
      for (const text of messages(chunk)) {
        if (!loseAfter || deaf) continue
        primed ||= loseAfter.trigger.test(text)
        deaf = primed && (loseAfter.then === undefined || loseAfter.then.test(text))
      }
      upstream.write(chunk)
    })
    upstream.on('data', chunk => { if (!deaf) client.write(chunk) })
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as { port: number }).port

  return {
    port,
    url (original) {
      const url = new URL(original)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      return url.toString()
    },
    cut () {
      cut = true
      for (const socket of open) socket.resetAndDestroy()
      open.clear()
    },
    heal () { cut = false; loseAfter = undefined },
    loseReply (trigger = /[\s\S]/, then) { loseAfter = { trigger, then } },
    get isCut () { return cut },
    async close () {
      cut = true
      for (const socket of open) socket.destroy()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  }
}

// PostgreSQL's protocol codes of a connection's first message, which has no type letter
const STARTUP_CODES = new Set([196608, 80877102, 80877103, 80877104])
// SSLRequest and GSSENCRequest: the server answers one byte, and the client's startup message follows
const ENCRYPTION_REQUESTS = new Set([80877103, 80877104])

/**
 * The messages of one connection's client, chunk by chunk, as the texts loseReply matches. A
 * PostgreSQL client's stream is cut into its messages (a statement's text may arrive split over
 * TCP reads on a busy machine, or several messages in one read); anything else is a chunk each.
 */
function clientMessages (): (chunk: Buffer) => string[] {
  let protocol: 'postgres' | 'other' | undefined
  let pending = Buffer.alloc(0)
  let startup = true
  // what each statement name was prepared as on this connection ('' the unnamed one)
  const prepared = new Map<string, string>()
  return chunk => {
    protocol ??= chunk.length >= 8 && STARTUP_CODES.has(chunk.readUInt32BE(4)) ? 'postgres' : 'other'
    if (protocol === 'other') return [chunk.toString('latin1')]
    pending = Buffer.concat([pending, chunk])
    const texts: string[] = []
    for (;;) {
      if (startup) {
        if (pending.length < 8) break
        const length = pending.readUInt32BE(0)
        if (pending.length < length) break
        startup = ENCRYPTION_REQUESTS.has(pending.readUInt32BE(4))
        pending = pending.subarray(length)
        continue
      }
      if (pending.length < 5) break
      const length = pending.readUInt32BE(1) + 1
      if (pending.length < length) break
      texts.push(messageText(pending.subarray(0, length), prepared))
      pending = pending.subarray(length)
    }
    return texts
  }
}

/** A frontend message as its type letter and the text of the statement it carries, if any. */
function messageText (message: Buffer, prepared: Map<string, string>): string {
  const type = String.fromCharCode(message[0])
  const strings = (from: number, count: number): string[] => {
    const found: string[] = []
    for (let at = from; found.length < count && at < message.length;) {
      const end = message.indexOf(0, at)
      if (end < 0) break
      found.push(message.subarray(at, end).toString('utf8'))
      at = end + 1
    }
    return found
  }
  switch (type) {
    case 'Q': return type + (strings(5, 1)[0] ?? '')
    case 'P': {
      const [name = '', text = ''] = strings(5, 2)
      prepared.set(name, text)
      return type + text
    }
    case 'B': {
      const [, statement = ''] = strings(5, 2)
      return type + (prepared.get(statement) ?? '')
    }
    default: return type
  }
}
