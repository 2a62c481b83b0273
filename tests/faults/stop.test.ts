import type { ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { freePort } from '../helpers/gateway.js'
import { sendOver } from '../helpers/send.js'
import { embeddedStore, npmStartProject, seedWorkspace, spawnNpmStart, withRuntime, type NpmStartProject, type ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'

/**
 * `npm start` as an operator runs it, signalled as a supervisor signals it (CONTRACT.md 12). npm runs
 * the script through `sh -c`, which (dash) dies without passing the signal on, so the script must
 * `exec` node. The script here is package.json's own `start`, with the compiled server swapped for
 * the sources through tsx (building dist/ would take a minute of the suite): same shell, same exec.
 */
describe('foul weather: SIGTERM and SIGINT to npm start', () => {
  let emulator: Emulator
  let store: ServerStore
  let project: NpmStartProject
  let workspace: { workspaceId: string, authorization: string }

  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 } })
    emulator.setStatusOptions('global', { statuses: [] })
    store = await embeddedStore()
    workspace = await seedWorkspace(store)
    project = await npmStartProject('npm-start')
  })
  afterAll(async () => {
    await emulator?.close()
    await store?.close()
    await project?.remove()
  })

  async function npmStart (): Promise<{ npm: ChildProcess, node: number, url: string, port: number, exited: Promise<number | null> }> {
    const port = await freePort()
    const env = { ...store.env, GRAPH_API_URL: emulator.url, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', TEMPLATE_SYNC_INTERVAL_MS: '0', DISPATCH_DEADLINE_MS: '5000', UPSTREAM_TIMEOUT_MS: '5000' }
    const { npm, stderr, exited } = spawnNpmStart(project.dir, env)
    const url = `http://127.0.0.1:${port}`
    await waitFor(async () => await fetch(`${url}/healthz`).then(response => response.ok, () => false), { timeoutMs: 60_000, what: () => `the server to answer (${stderr()})` })
    // with `exec`, the shell npm started has become node itself (else it is `sh`, and node its child)
    const [node] = (await readFile(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8')).trim().split(/\s+/).map(Number)
    expect((await readFile(`/proc/${node}/comm`, 'utf8')).trim()).toBe('node')
    return { npm, node, url, port, exited }
  }

  const refused = async (port: number) => await new Promise<boolean>(resolve => {
    const socket = connect({ port, host: '127.0.0.1' }, () => { socket.destroy(); resolve(false) })
    socket.once('error', () => resolve(true))
  })
  const alive = (pid: number) => { try { process.kill(pid, 0); return true } catch { return false } }

  it('SIGTERM: stops accepting at once, lets the send in flight finish, exits 0 with nothing interrupted and no orphan', async () => {
    const server = await npmStart()
    const to = '15552900001'
    emulator.setFaults({ recipient: to }, { latencyMs: 2500 })
    const requests = emulator.requests.length
    const answer = sendOver(server.url, workspace.authorization, { to, body: 'Hello' }).then(sent => sent.status)
    await waitFor(async () => emulator.requests.slice(requests).some(request => request.path.endsWith('/messages')), { what: 'the send with the upstream' })
    const signalled = Date.now()
    server.npm.kill('SIGTERM')
    await waitFor(async () => await refused(server.port), { timeoutMs: 10_000, what: 'the listening socket closed' })
    // CONTRACT.md 12 says 2 s; the margin is a loaded machine's
    expect(Date.now() - signalled).toBeLessThan(2000 + 1500)
    expect(await answer).toBe(200)
    expect(await server.exited).toBe(0)
    expect(alive(server.node)).toBe(false)
    const records = await withRuntime(store, async ({ stores }) => await stores.messages.list(workspace.workspaceId, { limit: 10 }))
    expect(records.find(record => record.recipient === to)).toMatchObject({ status: 'sent', errorCode: null })
    expect(records.filter(record => record.errorCode === 'interrupted')).toEqual([])
  })

  it('SIGINT: the same', async () => {
    const server = await npmStart()
    server.npm.kill('SIGINT')
    expect(await server.exited).toBe(0)
    expect(alive(server.node)).toBe(false)
  })
})
