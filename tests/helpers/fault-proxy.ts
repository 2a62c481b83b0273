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
   * A lost acknowledgement: from the next chunk the client sends that `trigger` matches (its bytes
   * as latin1; every chunk when omitted), or with `then` from the first chunk matching `then` at or
   * after one matching `trigger` (an insert, then its transaction's commit), that connection still
   * forwards the client's bytes to the server, which acts on them (a statement runs, a commit
   * commits), but drops the server's replies: the client waits on until a cut. Armed on every
   * connection, open and new, until heal. (A statement already prepared on a connection is sent by
   * name, without its text: cut and heal first for fresh connections.)
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
// longer than any text a trigger matches
const CARRIED_CHARS = 256

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
    // the replies are dropped once a chunk of the client's matched while loseReply was armed
    let deaf = false
    // a statement's text may arrive split over two chunks (a large one, a busy machine): the trigger
    // is looked for in each chunk with the end of the one before; `then` in what follows it
    let carried = ''
    let primed = false
    client.on('data', chunk => {
      if (loseAfter && !deaf) {
        let text = chunk.toString('latin1')
        if (!primed) {
          const joined = carried + text
          carried = joined.slice(-CARRIED_CHARS)
          const found = loseAfter.trigger.exec(joined)
          primed = found !== null
          if (found) text = joined.slice(found.index)
        }
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
