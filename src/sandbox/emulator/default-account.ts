import type { WabaAccount } from './types.js'

export function defaultAccount (): WabaAccount {
  return {
    wabaId: '102290129340398',
    accessToken: 'sandbox-access-token',
    name: 'Outbound Demo',
    phoneNumbers: [
      { id: '106540352242922', displayPhoneNumber: '+1 555-078-3881', verifiedName: 'Outbound Demo', qualityRating: 'GREEN', throughputLevel: 'STANDARD', messagingLimitTier: 'TIER_2K' },
      { id: '106540352242923', displayPhoneNumber: '+1 555-078-3882', verifiedName: 'Outbound Demo', qualityRating: 'GREEN', throughputLevel: 'STANDARD', messagingLimitTier: 'TIER_2K' }
    ],
    templates: [
      {
        id: '1259544702043860',
        name: 'hello_world',
        language: 'en_US',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hello World' }]
      },
      {
        id: '1259544702043861',
        name: 'order_confirmation',
        language: 'en_US',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [
          { type: 'BODY', text: 'Your order {{1}} is confirmed. Thank you for shopping with us!', example: { body_text: [['SKBUP2']] } },
          { type: 'FOOTER', text: 'Outbound Demo' }
        ]
      },
      {
        id: '1259544702043862',
        name: 'order_confirmation',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [
          { type: 'BODY', text: 'Seu pedido {{1}} foi confirmado. Obrigado pela preferência!', example: { body_text: [['SKBUP2']] } },
          { type: 'FOOTER', text: 'Outbound Demo' }
        ]
      },
      {
        id: '1259544702043863',
        name: 'promo_rejected',
        language: 'en_US',
        status: 'REJECTED',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Buy now!!! 90% off everything' }]
      },
      {
        id: '1259544702043864',
        name: 'appointment_reminder',
        language: 'en_US',
        status: 'PENDING',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Reminder: your appointment is on {{1}} at {{2}}.', example: { body_text: [['May 3', '10:00']] } }]
      },
      {
        id: '1259544702043865',
        name: 'weekly_offer',
        language: 'en_US',
        status: 'APPROVED',
        category: 'MARKETING',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'This week only' },
          { type: 'BODY', text: 'Hi {{1}}, enjoy {{2}} off your next order.', example: { body_text: [['Ana', '15%']] } },
          { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop promotions' }] }
        ]
      }
    ]
  }
}
