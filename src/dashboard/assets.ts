import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

export interface Asset { body: Buffer, type: string, version: string }

const TYPES = { 'dashboard.css': 'text/css; charset=utf-8', 'dashboard.js': 'text/javascript; charset=utf-8' } as const
export type AssetName = keyof typeof TYPES

// Read once: the files ship with the code and change only with a new release.
const ASSETS = new Map<string, Asset>(Object.entries(TYPES).map(([name, type]) => {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url))
  return [name, { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) }]
}))

export function asset (name: string): Asset | undefined {
  return ASSETS.get(name)
}

/** The asset's URL with its content hash, so a browser may cache it for good. */
export function assetUrl (name: AssetName): string {
  return `/dashboard/assets/${name}?v=${ASSETS.get(name)!.version}`
}
