import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../', import.meta.url))

/**
 * The tree of a git ref in a temporary directory, with this checkout's node_modules, so a bench can
 * run that commit's children beside today's in the same run. Read with `git archive`: the repository
 * and its worktrees are left as they are.
 */
export function checkoutRef (ref: string): { root: string, remove (): void } {
  const root = mkdtempSync(join(tmpdir(), 'outbound-bench-ref-'))
  const archive = execFileSync('git', ['-C', repo, 'archive', '--format=tar', ref], { maxBuffer: 1 << 30 })
  execFileSync('tar', ['-x', '-C', root], { input: archive })
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'))
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}
