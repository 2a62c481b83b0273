import { html, type SafeHtml } from '../html.js'

// Server-rendered SVG: no script, and colours as presentation attributes (the dashboard's CSP
// refuses inline style attributes, not these).
const COLOURS: Record<string, string> = { marketing: '#c2410c', utility: '#2563eb', authentication: '#7c3aed', service: '#059669', unknown: '#6b7280' }
const colourOf = (category: string) => COLOURS[category] ?? '#0891b2'

export interface DayBar { day: string, categories: Record<string, number> }

/** Messages per day, one bar per day stacked by category, with a legend; a table alternative for screen readers. */
export function stackedBars (days: DayBar[]): SafeHtml {
  const width = 640
  const height = 200
  const top = Math.max(1, ...days.map(day => Object.values(day.categories).reduce((sum, count) => sum + count, 0)))
  const slot = width / days.length
  const bar = Math.max(2, slot * 0.7)
  const categories = [...new Set(days.flatMap(day => Object.keys(day.categories)))].sort()
  const bars = days.map((day, index) => {
    let y = height
    return categories.filter(category => day.categories[category]).map(category => {
      const h = (day.categories[category] / top) * (height - 10)
      y -= h
      return html`<rect x="${(index * slot + (slot - bar) / 2).toFixed(1)}" y="${y.toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${colourOf(category)}" data-day="${day.day}" data-category="${category}"><title>${day.day} ${category}: ${day.categories[category]}</title></rect>`
    })
  })
  return html`<figure class="chart">
  <svg class="usage-chart" viewBox="0 0 ${width} ${height + 20}" width="100%" role="img" aria-label="Messages per day by pricing category, highest day ${top}">
    <line x1="0" y1="${height}" x2="${width}" y2="${height}" stroke="#9ca3af"/>
    ${bars}
    <text x="0" y="${height + 16}" font-size="11" fill="#4b5563">${days[0].day}</text>
    <text x="${width}" y="${height + 16}" font-size="11" fill="#4b5563" text-anchor="end">${days[days.length - 1].day}</text>
  </svg>
  <figcaption class="legend">${categories.map(category => html`<span class="legend-item"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${colourOf(category)}"/></svg> ${category}</span>`)}</figcaption>
</figure>`
}

/** Use of a limit as a half-circle gauge; an unlimited tier shows an empty arc. */
export function gauge (used: number, limit: number | null): SafeHtml {
  const share = limit === null || limit === 0 ? 0 : Math.min(1, used / limit)
  const angle = Math.PI * (1 - share)
  const x = 60 + 50 * Math.cos(angle)
  const y = 60 - 50 * Math.sin(angle)
  const colour = share >= 0.9 ? '#dc2626' : share >= 0.7 ? '#d97706' : '#059669'
  return html`<svg class="limit-gauge" viewBox="0 0 120 70" width="180" role="img" aria-label="${used} of ${limit === null ? 'unlimited' : String(limit)} recipients in the last 24 hours">
  <path d="M10 60 A50 50 0 0 1 110 60" fill="none" stroke="#e5e7eb" stroke-width="10"/>
  ${share > 0 && html`<path d="M10 60 A50 50 0 0 1 ${x.toFixed(2)} ${y.toFixed(2)}" fill="none" stroke="${colour}" stroke-width="10" data-share="${share.toFixed(3)}"/>`}
  <text x="60" y="58" font-size="14" text-anchor="middle" fill="#111827">${limit === null ? '∞' : `${Math.round(share * 100)}%`}</text>
</svg>`
}
