import { describe, expect, it } from 'vitest'
import { parseInvocation } from '../../src/cli/invocation.js'
import { workspaceSettings } from '../../src/cli/commands/workspace.js'
import type { Config } from '../../src/config.js'
import { useTestRuntime } from '../helpers/runtime.js'

/** `outbound workspace settings --read-receipts` (CONTRACT.md 19): the workspace printed with its policy, the change audited. */
describe('outbound workspace settings', () => {
  const runtime = useTestRuntime()

  it('sets the read-receipt policy, prints the workspace with it, and audits workspace.settings_changed once per change', async () => {
    const workspace = await runtime.current.stores.workspaces.create('Acme', 'growth')
    expect(workspace.readReceipts).toBe('manual')
    const printed = await workspaceSettings.run({ workspace: workspace.id, 'read-receipts': 'on_reply' }, runtime.current, {} as Config)
    expect(printed).toMatchObject({ id: workspace.id, read_receipts: 'on_reply' })
    await workspaceSettings.run({ workspace: workspace.id, 'read-receipts': 'on_reply' }, runtime.current, {} as Config)
    const entries = await runtime.current.stores.auditLog.page(workspace.id, { limit: 10 })
    expect(entries.map(entry => [entry.action, entry.targetKind, entry.targetId])).toEqual([['workspace.settings_changed', 'workspace', workspace.id]])
    await expect(workspaceSettings.run({ workspace: 'ws_nope', 'read-receipts': 'manual' }, runtime.current, {} as Config)).rejects.toThrow(/not found/)
  })

  it('refuses a policy it does not know', async () => {
    const invocation = await parseInvocation(['workspace', 'settings', '--workspace', 'ws_1', '--read-receipts', 'always']).catch((error: Error) => error)
    expect(String((invocation as Error).message ?? invocation)).toContain('--read-receipts must be one of manual, on_receipt, on_reply')
  })
})
