import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { ConfigError, loadConfig } from '../config.js'
import { EmbeddedDatabaseBusyError } from '../embedded-lock.js'
import { openRuntime } from '../runtime.js'

// A sandbox is for trying things: PGlite's WebAssembly runs as first compiled (Liftoff), without the
// optimising compiler's second pass in the background, which took a third of the CPU of its start.
setFlagsFromString('--liftoff-only')

/**
 * `npm run sandbox`'s entry: the embedded database starts opening first, so that reading its files and
 * compiling its WebAssembly (on V8's threads) overlap loading the gateway's modules (sandbox.ts, a
 * chunk of its own), the largest part of the start.
 */
async function main (): Promise<void> {
  // Quiet by default so the banner stays readable; LOG_LEVEL=info shows every request.
  // Local endpoints are allowed, so the demo receiver (and yours) can get events. The emulator's recipients
  // never write, so after the sandbox's first day the service window would refuse every free-form message.
  const env: Record<string, string | undefined> = { DATA_DIR: join('data', 'sandbox'), LOG_LEVEL: 'warn', WEBHOOKS_ALLOW_PRIVATE: 'true', SERVICE_WINDOW_CHECK: 'off', ...process.env }
  // the upstream's URL is the emulator's, known later: opening the database reads none of it
  const runtime = openRuntime(loadConfig({ ...env, DATABASE_URL: undefined }), 'server')
  runtime.catch(() => {}) // awaited by the app's database plugin, whose failure ends the start below
  const { runSandbox } = await import('./sandbox.js')
  await runSandbox(env, runtime)
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof EmbeddedDatabaseBusyError
  console.error(`outbound sandbox: ${known ? (error as Error).message : (error as Error)?.stack ?? String(error)}`)
  process.exit(1)
})
