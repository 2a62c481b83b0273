import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

export interface Asset { body: Buffer, type: string, version: string }

const TYPES = { 'dashboard.css': 'text/css; charset=utf-8', 'dashboard.js': 'text/javascript; charset=utf-8', 'favicon.svg': 'image/svg+xml' } as const
export type AssetName = keyof typeof TYPES

// Read once, when the dashboard is first used: the files ship with the code and change only with a
// new release, and a deployment that never opens the dashboard never reads them.
const ASSETS = new Map<string, Asset>()

function load (name: AssetName): Asset {
  const loaded = ASSETS.get(name)
  if (loaded) return loaded
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url))
  const asset = { body, type: TYPES[name], version: createHash('sha256').update(body).digest('hex').slice(0, 12) }
  ASSETS.set(name, asset)
  return asset
}

export function asset (name: string): Asset | undefined {
  return Object.hasOwn(TYPES, name) ? load(name as AssetName) : undefined
}

/** The asset's URL with its content hash, so a browser may cache it for good. */
export function assetUrl (name: AssetName): string {
  return `/dashboard/assets/${name}?v=${load(name).version}`
}
