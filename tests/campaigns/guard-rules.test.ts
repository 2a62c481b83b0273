import { describe, expect, it } from 'vitest'
import { exceedsLimit, failureCodes, failureRateExceeded, numberEventVerdict, ratingVerdict, templateVerdict, tierVerdict } from '../../src/campaigns/guard/rules.js'

/** The guard's rules as pure functions (src/campaigns/guard/rules.ts, CONTRACT.md 21). */
describe('quality guard: rules', () => {
  it('number events and node ratings', () => {
    expect(numberEventVerdict('FLAGGED')).toEqual({ act: 'pause', reason: 'number_flagged' })
    expect(numberEventVerdict('UNFLAGGED')).toEqual({ act: 'clear', reason: 'number_flagged' })
    expect(numberEventVerdict('THROUGHPUT_UPGRADE')).toBeUndefined()
    expect(ratingVerdict('GREEN', 'RED')).toEqual({ act: 'pause', reason: 'number_flagged' })
    expect(ratingVerdict('RED', 'RED')).toBeUndefined()
    expect(ratingVerdict('RED', 'YELLOW')).toEqual({ act: 'clear', reason: 'number_flagged' })
    expect(ratingVerdict('GREEN', 'YELLOW')).toBeUndefined()
    expect(ratingVerdict('RED', 'UNKNOWN')).toBeUndefined()
  })

  it('templates: status and quality', () => {
    expect(templateVerdict({ status: 'PAUSED' })?.reason).toBe('template_paused')
    expect(templateVerdict({ status: 'DISABLED' })).toEqual({ act: 'pause', reason: 'template_paused' })
    expect(templateVerdict({ status: 'APPROVED' })).toEqual({ act: 'clear', reason: 'template_paused' })
    expect(templateVerdict({ quality: 'RED' })).toEqual({ act: 'pause', reason: 'template_quality_red' })
    expect(templateVerdict({ quality: 'GREEN' })).toEqual({ act: 'clear', reason: 'template_quality_red' })
    expect(templateVerdict({ quality: 'UNKNOWN' })).toBeUndefined()
    expect(templateVerdict({ category: 'MARKETING' } as never)).toBeUndefined()
  })

  it('tiers: a drop by event or by limit wins; a rise by event or limit; remaining against what is left', () => {
    expect(tierVerdict('DOWNGRADE', 2000, 2000)?.act).toBe('pause')
    expect(tierVerdict(undefined, 2000, 250)?.act).toBe('pause')
    expect(tierVerdict('UPGRADE', 2000, 250)?.act).toBe('pause')
    expect(tierVerdict(undefined, null, 10_000)?.act).toBe('pause')
    expect(tierVerdict('UPGRADE', 250, 250)?.act).toBe('clear')
    expect(tierVerdict(undefined, 250, null)?.act).toBe('clear')
    expect(tierVerdict('FLAGGED', 250, 250)).toBeUndefined()
    expect(exceedsLimit(150, 250, 200)).toBe(true)
    expect(exceedsLimit(50, 250, 200)).toBe(false)
    expect(exceedsLimit(0, 250, 400)).toBe(false)
    expect(exceedsLimit(1_000_000, null, 0)).toBe(false)
  })

  it('the failure rate: only once the window is full, strictly over the rate; the codes', () => {
    const settings = { window: 10, rate: 0.2 }
    expect(failureRateExceeded({ finished: 9, failed: 9 }, settings)).toBe(false)
    expect(failureRateExceeded({ finished: 10, failed: 2 }, settings)).toBe(false)
    expect(failureRateExceeded({ finished: 10, failed: 3 }, settings)).toBe(true)
    expect(failureCodes('')).toEqual(['131049', '131050', '131048', '131031', '130497'])
    expect(failureCodes('131026, 131049')).toEqual(['131049', '131050', '131048', '131031', '130497', '131026'])
  })
})
