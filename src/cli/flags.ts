/** Wrong usage: the CLI exits 2 and says what the command expects. */
export class UsageError extends Error {}

/** Turns one --flag's raw value into what a command receives, or throws a UsageError. */
export interface Flag<T> {
  placeholder: string
  required: boolean
  /** a switch takes no value: `--prune` */
  switch?: boolean
  parse(value: string | undefined, name: string): T
}

/** `--dry-run`: true when given. */
export function present (): Flag<boolean> {
  return { placeholder: '', required: false, switch: true, parse: value => value !== undefined }
}

/** `90d`, `12h`, `30m`, `0s`: a duration in milliseconds. */
export function duration (placeholder: string): Flag<number> {
  const UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }
  return {
    placeholder,
    required: true,
    parse (value, name) {
      const found = /^(\d{1,9})([dhms])$/.exec(text(placeholder).parse(value, name))
      if (!found) throw new UsageError(`--${name} must be a number followed by d, h, m or s (90d, 12h, 30m, 0s)`)
      return Number(found[1]) * UNITS[found[2]]
    }
  }
}

export function text (placeholder: string): Flag<string> {
  return {
    placeholder,
    required: true,
    parse (value, name) {
      if (value === undefined) throw new UsageError(`missing --${name}`)
      if (value.trim() === '') throw new UsageError(`--${name} must not be empty`)
      return value
    }
  }
}

export function oneOf<V extends string> (placeholder: string, values: readonly V[]): Flag<V> {
  return {
    placeholder,
    required: true,
    parse (value, name) {
      const given = text(placeholder).parse(value, name)
      if (!(values as readonly string[]).includes(given)) throw new UsageError(`--${name} must be one of ${values.join(', ')}`)
      return given as V
    }
  }
}

export function integer (placeholder: string, minimum: number, maximum: number): Flag<number> {
  return {
    placeholder,
    required: true,
    parse (value, name) {
      const given = text(placeholder).parse(value, name)
      const number = /^\d+$/.test(given) ? Number(given) : NaN
      if (!(number >= minimum && number <= maximum)) throw new UsageError(`--${name} must be an integer from ${minimum} to ${maximum}`)
      return number
    }
  }
}

export function optional<T> (flag: Flag<T>): Flag<T | undefined>
export function optional<T> (flag: Flag<T>, fallback: T): Flag<T>
export function optional<T> (flag: Flag<T>, fallback?: T): Flag<T | undefined> {
  return {
    placeholder: flag.placeholder,
    required: false,
    parse: (value, name) => value === undefined ? fallback : flag.parse(value, name)
  }
}

/** `a,b`: the comma-separated values, trimmed, none empty. */
export function list (placeholder: string): Flag<string[]> {
  return {
    placeholder,
    required: true,
    parse (value, name) {
      const values = text(placeholder).parse(value, name).split(',').map(item => item.trim())
      if (values.some(item => item === '')) throw new UsageError(`--${name} must be a comma-separated list without empty entries`)
      return values
    }
  }
}

/** `--prune`: present or not, without a value. */
export function toggle (): Flag<boolean> {
  return { placeholder: '', required: false, switch: true, parse: value => value !== undefined }
}
