import type { FastifyInstance } from 'fastify'

/**
 * Every GET route of the app, as full paths, read from Fastify's own route tree (printRoutes):
 * a page added by anyone is found without being listed here.
 */
export function getRoutes (app: FastifyInstance): string[] {
  const tree = app.printRoutes({ method: 'GET', commonPrefix: false })
  const routes: string[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    // "│   ├── /:id (GET)": four characters of tree per level, then the segment and its methods
    const match = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!match) continue
    const depth = match[1].length / 4
    stack.length = depth
    stack.push(match[2])
    if (match[3]?.split(', ').includes('GET')) routes.push(stack.join('').replace(/\/+$/, '') || '/')
  }
  return [...new Set(routes)]
}

/** The route pattern a concrete path matches: `:param` stands for one segment. */
export function matches (pattern: string, path: string): boolean {
  const source = pattern.split('/').map(part => part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/')
  return new RegExp(`^${source}$`).test(path)
}
