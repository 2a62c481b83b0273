import { afterAll, beforeAll } from 'vitest'
import type { Plan } from '../../db/schema.js'
import type { EmulatorOptions } from '../../src/sandbox/emulator/index.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from './gateway.js'

export interface UseGatewayOptions {
  /** or a function, for settings known only at start (a port free then, say) */
  env?: Record<string, string> | (() => Promise<Record<string, string>>)
  emulator?: EmulatorOptions
  /** the plan of the connected workspace (default growth); null: none is created */
  plan?: Plan | null
  /** runs once after start, before the tests (emulator settings, more workspaces, …) */
  setup?: (gateway: TestGateway, workspace: ConnectedWorkspace | undefined) => Promise<void> | void
}

export interface UsedGateway {
  readonly gateway: TestGateway
  /** a workspace connected to the emulator's default WABA, with an API key */
  readonly workspace: ConnectedWorkspace
}

/**
 * A listening gateway (fresh database, the emulator as upstream) for the enclosing describe, and by
 * default a connected workspace on it; closed after the describe's tests. Read its properties inside
 * hooks and tests, not at collection time.
 */
export function useGateway (options: UseGatewayOptions = {}): UsedGateway {
  let gateway: TestGateway | undefined
  let workspace: ConnectedWorkspace | undefined
  beforeAll(async () => {
    const env = typeof options.env === 'function' ? await options.env() : options.env
    gateway = await startGateway({ env, emulator: options.emulator })
    if (options.plan !== null) workspace = await connectedWorkspace(gateway, options.plan ?? 'growth')
    await options.setup?.(gateway, workspace)
  })
  afterAll(async () => { await gateway?.close() })
  return {
    get gateway () {
      if (!gateway) throw new Error('useGateway: the gateway is started in beforeAll; read it inside hooks and tests')
      return gateway
    },
    get workspace () {
      if (!workspace) throw new Error(options.plan === null ? 'useGateway: started with plan: null, so no workspace was connected' : 'useGateway: read the workspace inside hooks and tests')
      return workspace
    }
  }
}
