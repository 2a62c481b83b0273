import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The demo workspace and key the sandbox created, kept beside its data so every start prints the
 * same working curl and dashboard sign-in. A sandbox-only convenience: a real deployment never keeps a key's secret.
 */
export interface SandboxState {
  workspaceId: string
  apiKeySecret?: string
  /** the demo dashboard user's sign-in, printed on every start */
  dashboardEmail?: string
  dashboardPassword?: string
  /** the endpoint pointing at the demo receiver, reused by every start (with its secret) while its URL holds */
  webhookEndpointId?: string
  webhookSecret?: string
  /** the demo receiver's port, taken again on the next start so that the endpoint's URL stays the same */
  receiverPort?: number
}

const FILE = 'sandbox.json'

export function readSandboxState (dataDir: string): SandboxState | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as SandboxState
  } catch {
    return undefined
  }
}

export function writeSandboxState (dataDir: string, state: SandboxState): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 })
}
