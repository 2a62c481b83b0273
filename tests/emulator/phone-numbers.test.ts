import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultAccount, startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { graph, NUMBER, WABA } from './helpers.js'

describe('emulator: phone numbers and nodes', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator() })
  afterAll(() => emulator.close())

  it('lists the WABA numbers in the configured order', async () => {
    const response = await graph(emulator, 'GET', `/${WABA}/phone_numbers`)
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual([
      {
        verified_name: 'Outbound Demo',
        code_verification_status: 'VERIFIED',
        display_phone_number: '+1 555-078-3881',
        quality_rating: 'GREEN',
        platform_type: 'CLOUD_API',
        throughput: { level: 'STANDARD' },
        id: NUMBER
      },
      expect.objectContaining({ id: '106540352242923', display_phone_number: '+1 555-078-3882' })
    ])
    expect(response.body.paging.cursors).toEqual({ before: expect.any(String), after: expect.any(String) })
  })

  it('serves the phone number node with its default fields', async () => {
    const response = await graph(emulator, 'GET', `/${NUMBER}`)
    expect(response.body).toEqual({
      display_phone_number: '+1 555-078-3881',
      verified_name: 'Outbound Demo',
      quality_rating: 'GREEN',
      throughput: { level: 'STANDARD' },
      whatsapp_business_manager_messaging_limit: 'TIER_2K',
      status: 'CONNECTED',
      code_verification_status: 'VERIFIED',
      platform_type: 'CLOUD_API',
      id: NUMBER
    })
  })

  it('selects fields, nested selections included, and refuses unknown ones', async () => {
    const selected = await graph(emulator, 'GET', `/${NUMBER}?fields=throughput{level},quality_rating,messaging_limit_tier`)
    expect(selected.body).toEqual({ throughput: { level: 'STANDARD' }, quality_rating: 'GREEN', id: NUMBER })
    const unknown = await graph(emulator, 'GET', `/${NUMBER}?fields=colour`)
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toBe('(#100) Tried accessing nonexisting field (colour) on node type (WhatsAppBusinessPhoneNumber)')
  })

  it('shows a HIGH throughput number added at run time', async () => {
    emulator.addAccount({
      ...defaultAccount(),
      wabaId: '300000000000001',
      accessToken: 'high-token',
      phoneNumbers: [{ id: '300000000000002', displayPhoneNumber: '+1 555-000-9999', verifiedName: 'Fast', throughputLevel: 'HIGH' }]
    })
    const response = await graph(emulator, 'GET', '/300000000000002?fields=throughput', { token: 'high-token' })
    expect(response.body).toEqual({ throughput: { level: 'HIGH' }, id: '300000000000002' })
  })

  it('serves the WABA node', async () => {
    const response = await graph(emulator, 'GET', `/${WABA}?fields=name`)
    expect(response.body).toEqual({ name: 'Outbound Demo', id: WABA })
  })
})
