import { createServer, connect, type Server, type Socket } from 'node:net'

export interface FaultProxy {
  /** 127.0.0.1:port where the proxy listens */
  readonly port: number
  /** the given URL (postgres://…, redis://…) with its host and port replaced by the proxy's */
  url (target: string): string
  /** Refuses new connections (reset at once) and resets every open one, both ways. */
  cut (): void
  /** Lets connections through again. */
  heal (): void
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

  const server: Server = createServer({ noDelay: true }, client => {
    if (cut) { client.resetAndDestroy(); return }
    const upstream = connect({ host, port: target.port, noDelay: true })
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on('close', () => open.delete(socket))
      socket.on('error', () => { client.destroy(); upstream.destroy() })
    }
    client.pipe(upstream)
    upstream.pipe(client)
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
    heal () { cut = false },
    get isCut () { return cut },
    async close () {
      cut = true
      for (const socket of open) socket.destroy()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  }
}
