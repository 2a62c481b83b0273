import type { Config } from '../config.js'
import type { Runtime } from '../runtime.js'
import type { Flag } from './flags.js'

type Flags = Record<string, Flag<unknown>>
type FlagValues<F extends Flags> = { [K in keyof F]: F[K] extends Flag<infer T> ? T : never }

/** An operator error the CLI reports as is and exits 1 on, such as an unknown id. */
export class CommandError extends Error {}

/** One entry of the command table: its flags are validated before the database is opened. */
export interface Command {
  summary: string
  flags: Flags
  run(args: Record<string, unknown>, runtime: Runtime, config: Config): Promise<object>
}

/**
 * A line of the command table (commands/index.ts): a function that imports the command's module, so
 * that only the command run is loaded. A Command given as is (its module imported statically) works
 * too, but then it and all it imports load for every command.
 */
export type CommandEntry = (() => Promise<Command>) | Command

export async function loadCommand (entry: CommandEntry): Promise<Command> {
  return typeof entry === 'function' ? await entry() : entry
}

export function defineCommand<F extends Flags> (command: {
  summary: string
  flags: F
  run(args: FlagValues<F>, runtime: Runtime, config: Config): Promise<object>
}): Command {
  return command as Command
}

/** `--workspace ID [--name N]`: the flags as the help and usage errors show them. */
export function usageOf (name: string, command: Command): string {
  const flags = Object.entries(command.flags).map(([flag, { placeholder, required, switch: isSwitch }]) =>
    isSwitch ? `[--${flag}]` : required ? `--${flag} ${placeholder}` : `[--${flag} ${placeholder}]`)
  return ['outbound', name, ...flags].join(' ')
}
