import type { EmulatedNumber, EmulatedTemplate, WabaAccount } from './types.js'

export interface StoredTemplate extends EmulatedTemplate { id: string }

export interface WabaState {
  account: WabaAccount
  templates: StoredTemplate[]
  subscribed: boolean
  callback?: string
}

export interface GraphNode { waba: WabaState, number?: EmulatedNumber }

// Template-event names that are not template statuses map onto the status they leave behind.
const EVENT_STATUS: Record<string, string | undefined> = { REINSTATED: 'APPROVED', UNARCHIVED: 'APPROVED', FLAGGED: undefined }

let nextTemplateId = 1_600_000_000_000_000

export class AccountStore {
  readonly #wabas = new Map<string, WabaState>()
  readonly #numbers = new Map<string, GraphNode>()

  constructor (accounts: WabaAccount[]) {
    for (const account of accounts) this.add(account)
  }

  add (account: WabaAccount): void {
    const previous = this.#wabas.get(account.wabaId)
    for (const number of previous?.account.phoneNumbers ?? []) this.#numbers.delete(number.id)
    const waba: WabaState = { account, templates: [], subscribed: previous?.subscribed ?? false, callback: previous?.callback }
    this.#wabas.set(account.wabaId, waba)
    for (const number of account.phoneNumbers) this.#numbers.set(number.id, { waba, number })
    this.setTemplates(account.wabaId, account.templates)
  }

  setTemplates (wabaId: string, templates: EmulatedTemplate[]): void {
    const waba = this.#wabas.get(wabaId)
    if (!waba) throw new Error(`unknown WABA ${wabaId}`)
    waba.templates = templates.map(function stored (template) {
      return { ...template, id: template.id ?? String(nextTemplateId++) }
    })
  }

  node (id: string): GraphNode | undefined {
    const waba = this.#wabas.get(id)
    return waba ? { waba } : this.#numbers.get(id)
  }

  waba (wabaId: string): WabaState {
    const waba = this.#wabas.get(wabaId)
    if (!waba) throw new Error(`unknown WABA ${wabaId}`)
    return waba
  }

  number (phoneNumberId: string): Required<GraphNode> {
    const node = this.#numbers.get(phoneNumberId)
    if (!node?.number) throw new Error(`unknown phone number id ${phoneNumberId}`)
    return { waba: node.waba, number: node.number }
  }

  knowsToken (token: string): boolean {
    for (const waba of this.#wabas.values()) if (waba.account.accessToken === token) return true
    return false
  }

  /** A template by its id, with the WABA holding it. */
  template (id: string): { waba: WabaState, template: StoredTemplate } | undefined {
    for (const waba of this.#wabas.values()) {
      const template = waba.templates.find(t => t.id === id)
      if (template) return { waba, template }
    }
    return undefined
  }

  newTemplateId (): string {
    return String(nextTemplateId++)
  }

  applyTemplateEvent (wabaId: string, name: string, language: string, event: string): StoredTemplate | undefined {
    const template = this.waba(wabaId).templates.find(t => t.name === name && t.language === language)
    const status = event in EVENT_STATUS ? EVENT_STATUS[event] : event
    if (template && status) template.status = status
    return template
  }
}

export function findTemplate (waba: WabaState, name: string, language: string): StoredTemplate | undefined {
  return waba.templates.find(t => t.name === name && t.language === language)
}
