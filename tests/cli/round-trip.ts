import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../db/client.js'
import { apiKeys, inboundMessages, messages } from '../../db/schema.js'
import type { CliBackend } from './backends.js'
import { runCli } from '../helpers/cli.js'

/** The same operator session on any backend: every command through the real CLI, the database read behind its back. */
export function describeRoundTrip (title: string, open: () => Promise<CliBackend>, skip = false): void {
  describe.skipIf(skip)(`outbound ${title}`, () => {
    let backend: CliBackend
    const cli = async (...args: string[]) => await runCli(args, backend.env)

    // Read the database behind the CLI's back, only while no command runs (PGlite allows one process at a time).
    async function withDatabase<T> (use: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>): Promise<T> {
      const handle = openDatabase(backend.env.DATABASE_URL, backend.env.DATA_DIR)
      try {
        return await use(handle.db)
      } finally {
        await handle.close()
      }
    }

    beforeAll(async () => { backend = await open() })
    afterAll(async () => { await backend?.close() })

    it('migrates and says which database it reached', async () => {
      const result = await cli('migrate')
      expect(result.code).toBe(0)
      expect(result.json).toEqual({ ok: true, database: backend.kind })
    })

    it('creates a workspace, changes its plan, creates a key, lists it without secret, revokes it', async () => {
      const workspace = (await cli('workspace', 'create', '--name', 'Acme Ltd', '--plan', 'free')).json
      expect(workspace).toMatchObject({ id: expect.stringMatching(/^ws_/), name: 'Acme Ltd', plan: 'free' })
      const changed = await cli('workspace', 'plan', '--workspace', workspace.id, '--plan', 'growth')
      expect(changed.json).toMatchObject({ id: workspace.id, name: 'Acme Ltd', plan: 'growth' })

      const created = await cli('keys', 'create', '--workspace', workspace.id, '--name', 'ci')
      expect(created.code).toBe(0)
      expect(created.stderr).toBe('')
      const key = created.json
      expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), name: 'ci', secret: expect.stringMatching(/^obk_live_/) })

      const listed = await cli('keys', 'list', '--workspace', workspace.id)
      expect(listed.json.keys).toEqual([expect.objectContaining({ id: key.id, name: 'ci', prefix: key.prefix, revoked_at: null })])
      expect(listed.stdout).not.toContain(key.secret.slice(key.prefix.length + 1))
      expect(listed.stdout).not.toContain(sha256(key.secret))
      expect(listed.stdout).not.toMatch(/secret|hash/i)

      expect((await cli('keys', 'revoke', '--id', key.id)).json).toEqual({ ok: true })
      const after = (await cli('keys', 'list', '--workspace', workspace.id)).json.keys
      expect(after).toEqual([expect.objectContaining({ id: key.id, revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })])

      const row = await withDatabase(async db => (await db.select().from(apiKeys).where(eq(apiKeys.id, key.id)))[0])
      expect(JSON.stringify(row)).not.toContain(key.secret.slice(key.prefix.length + 1))
      expect(row.secretHash).toBe(sha256(key.secret))
    })

    it('refuses unknown ids with exit 1 and a clear error', async () => {
      const refusals = [
        await cli('workspace', 'plan', '--workspace', 'ws_missing', '--plan', 'growth'),
        await cli('inbound', 'list', '--workspace', 'ws_missing'),
        await cli('keys', 'revoke', '--id', 'key_missing')
      ]
      expect(refusals.map(result => [result.code, result.stdout, result.json])).toEqual([
        [1, '', { ok: false, error: 'workspace "ws_missing" not found' }],
        [1, '', { ok: false, error: 'workspace "ws_missing" not found' }],
        [1, '', { ok: false, error: 'API key "key_missing" not found' }]
      ])
    })

    it('lists sent and received messages newest first, filtered and limited', async () => {
      const workspace = (await cli('workspace', 'create', '--name', 'Gamma', '--plan', 'scale')).json
      await withDatabase(async db => {
        const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute))
        const sent = (id: string, status: 'sent' | 'failed', minute: number) => ({
          id, workspaceId: workspace.id, phoneNumberId: '1001', recipient: '15550001111', type: 'text',
          payload: {}, status, wamid: `wamid.${id}`, attempts: 1, createdAt: at(minute), updatedAt: at(minute)
        })
        await db.insert(messages).values([sent('msg_a', 'sent', 1), sent('msg_b', 'failed', 2), sent('msg_c', 'sent', 3)])
        await db.insert(inboundMessages).values([1, 2].map(minute => ({
          id: `in_${minute}`, workspaceId: workspace.id, phoneNumberId: '1001', wamid: `wamid.in${minute}`,
          from: '15550002222', type: 'text', payload: {}, receivedAt: at(minute)
        })))
      })

      const all = (await cli('messages', 'list', '--workspace', workspace.id)).json.messages
      expect(all.map((message: { id: string }) => message.id)).toEqual(['msg_c', 'msg_b', 'msg_a'])
      expect(all[0]).toEqual({
        id: 'msg_c', wamid: 'wamid.msg_c', to: '15550001111', recipient_user_id: null, type: 'text', status: 'sent', error_code: null,
        attempts: 1, created_at: '2026-01-01T12:03:00.000Z', updated_at: '2026-01-01T12:03:00.000Z'
      })
      const sentOnly = (await cli('messages', 'list', '--workspace', workspace.id, '--status', 'sent', '--limit', '1')).json
      expect(sentOnly.messages.map((message: { id: string }) => message.id)).toEqual(['msg_c'])

      const inbound = (await cli('inbound', 'list', '--workspace', workspace.id)).json.messages
      expect(inbound).toEqual([
        { id: 'in_2', wamid: 'wamid.in2', from: '15550002222', from_user_id: null, type: 'text', phone_number_id: '1001', received_at: '2026-01-01T12:02:00.000Z' },
        expect.objectContaining({ id: 'in_1' })
      ])
    })

    it('leaves a server running on the same database healthy', async ({ skip }) => {
      if (!backend.server) skip('no server can share an embedded database')
      expect((await fetch(`${backend.server!.url}/readyz`)).status).toBe(200)
    })
  })
}

function sha256 (text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
