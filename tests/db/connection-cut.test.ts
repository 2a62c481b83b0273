import { createServer, connect, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../db/client.js'
import { createPostgresDatabase, type TestDatabase } from '../helpers/database.js'

/**
 * A proxy that lets every connection finish its start-up and resets it at the client's first
 * statement: a database that cuts connections as they open (an administrator's terminate, a
 * failover). postgres.js's own first statement on a connection, if it sends one, is what meets it.
 */
async function cutAtFirstStatement (port: number): Promise<{ url (target: string): string, close (): Promise<void> }> {
  const open = new Set<Socket>()
  const server: Server = createServer(client => {
    const upstream = connect({ host: '127.0.0.1', port })
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on('close', () => open.delete(socket))
      socket.on('error', () => { client.destroy(); upstream.destroy() })
    }
    let chunks = 0
    client.on('data', chunk => {
      if (++chunks === 1) { upstream.write(chunk); return } // the start-up message
      client.resetAndDestroy(); upstream.destroy()
    })
    upstream.pipe(client)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', () => resolve()))
  const proxyPort = (server.address() as { port: number }).port
  return {
    url (target) { const url = new URL(target); url.hostname = '127.0.0.1'; url.port = String(proxyPort); return url.toString() },
    async close () { for (const socket of open) socket.destroy(); await new Promise<void>(resolve => server.close(() => resolve())) }
  }
}

describe.runIf(process.env.TEST_DATABASE_URL)('connections cut as they open (PostgreSQL)', () => {
  let database: TestDatabase
  let proxy: Awaited<ReturnType<typeof cutAtFirstStatement>>
  let handle: DatabaseHandle
  const unhandled: unknown[] = []
  const collect = (reason: unknown) => { unhandled.push(reason) }

  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!)
    proxy = await cutAtFirstStatement(Number(new URL(database.url).port || 5432))
    handle = openDatabase(proxy.url(database.url), '/nonexistent')
    process.on('unhandledRejection', collect)
  })
  afterAll(async () => {
    process.off('unhandledRejection', collect)
    await handle?.close().catch(() => {})
    await proxy?.close()
    await database?.drop()
  })

  it('fails the statement that met the cut, and nothing else: no unhandled rejection takes the process down', async () => {
    await expect(handle.ping()).rejects.toThrow()
    await expect(handle.migrate()).rejects.toThrow()
    await new Promise(resolve => setTimeout(resolve, 500))
    expect(unhandled).toEqual([])
  })
})
