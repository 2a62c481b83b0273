export interface FunctionSource { file: string, text: string, definition: string }
export interface MigratedFunction { tag: string, definition: string }
export function functionSources (root?: string): Map<string, FunctionSource>
export function migratedFunctions (root?: string): Map<string, MigratedFunction>
export function differences (root?: string): { changed: FunctionSource[], unsourced: string[] }
export function generate (root?: string, name?: string): string | undefined
