// Outbound dashboard: progressive enhancement only. Every page works without this file; with it,
// the compose form shows only the fields of the chosen type, secrets copy in one click, and the
// message pages follow new messages and status changes without a reload.
(function () {
  'use strict'

  var POLL_MS = 2000

  /** Fills a row or block from display strings, by data-field; never as markup. */
  function fill (root, values) {
    root.querySelectorAll('[data-field]').forEach(function (element) {
      var name = element.getAttribute('data-field')
      if (!Object.prototype.hasOwnProperty.call(values, name)) return
      var value = values[name] == null ? '' : String(values[name])
      if (name === 'href') {
        element.setAttribute('href', value)
        return
      }
      element.textContent = value
      if (name === 'status') element.setAttribute('data-status', value)
    })
  }

  function clone (templateId) {
    return document.getElementById(templateId).content.firstElementChild.cloneNode(true)
  }

  /** Fetches url every POLL_MS while the page is visible; stops for good once the session is gone. */
  function poll (url, apply, statusElement) {
    var stopped = false
    function tick () {
      if (stopped) return
      if (document.hidden) {
        setTimeout(tick, POLL_MS)
        return
      }
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (response) {
          if (response.status === 401) {
            stopped = true
            if (statusElement) statusElement.textContent = 'Signed out: reload the page to sign in again'
            return
          }
          if (!response.ok) throw new Error('HTTP ' + response.status)
          return response.json().then(apply)
        })
        .catch(function () { if (statusElement) statusElement.textContent = 'Reconnecting…' })
        .then(function () { setTimeout(tick, POLL_MS) })
    }
    setTimeout(tick, POLL_MS)
  }

  function setUpCopyButtons () {
    document.querySelectorAll('[data-copy]').forEach(function (button) {
      var input = document.getElementById(button.getAttribute('data-copy'))
      var status = document.querySelector('[data-copy-status]')
      function report (copied) {
        if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Select the secret and copy it with Ctrl+C (⌘C on a Mac).'
        if (copied) button.textContent = 'Copied'
      }
      function fallback () {
        input.focus()
        input.select()
        var copied = false
        try { copied = document.execCommand('copy') } catch (error) { copied = false }
        report(copied)
      }
      button.addEventListener('click', function () {
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(function () { report(true) }, fallback)
        else fallback()
      })
    })
    document.querySelectorAll('[data-secret]').forEach(function (input) {
      input.addEventListener('focus', function () { input.select() })
    })
  }

  function setUpCompose () {
    var form = document.querySelector('[data-compose]')
    if (!form) return
    var template = form.querySelector('select[name="template"]')
    var preview = form.querySelector('[data-template-preview]')
    function showChosenType () {
      var checked = form.querySelector('input[name="type"]:checked')
      var type = checked ? checked.value : 'text'
      form.querySelectorAll('[data-types]').forEach(function (section) {
        var shown = section.getAttribute('data-types').split(' ').indexOf(type) !== -1
        section.hidden = !shown
        // Hidden fields are not sent: a leftover caption must not turn a text message into a 422.
        section.querySelectorAll('input, select, textarea').forEach(function (control) { control.disabled = !shown })
      })
    }
    function showTemplateBody () {
      var option = template && template.selectedOptions[0]
      var body = option && option.getAttribute('data-body')
      if (preview) preview.textContent = body ? 'Body: ' + body : ''
    }
    form.addEventListener('change', function () {
      showChosenType()
      showTemplateBody()
    })
    showChosenType()
    showTemplateBody()
  }

  function setUpMessageList () {
    var table = document.querySelector('table[data-live]')
    if (!table) return
    var body = table.tBodies[0]
    var empty = table.closest('section').querySelector('.empty')
    poll(table.getAttribute('data-live'), function (data) {
      var anchor = body.firstElementChild
      data.messages.forEach(function (message) {
        var row = body.querySelector('tr[data-id="' + CSS.escape(message.id) + '"]')
        if (row) {
          fill(row, message)
          return
        }
        // Rows come newest first, and anything not shown yet is newer than what is.
        row = clone('message-row')
        row.setAttribute('data-id', message.id)
        row.classList.add('is-new')
        fill(row, message)
        body.insertBefore(row, anchor)
      })
      if (empty && body.rows.length > 0) empty.hidden = true
    }, document.querySelector('[data-live-status]'))
  }

  function setUpMessageDetail () {
    var live = document.querySelector('[data-live-message]')
    if (!live) return
    var history = live.querySelector('[data-history]')
    var shown = ''
    poll(live.getAttribute('data-live-message'), function (data) {
      fill(live.querySelector('.facts'), data.message)
      // "Queued since …" says nothing true once the message has moved on
      live.querySelectorAll('[data-while-status]').forEach(function (note) {
        note.hidden = note.getAttribute('data-while-status') !== data.message.status
      })
      var latest = JSON.stringify(data.history)
      if (latest === shown) return
      shown = latest
      history.textContent = ''
      data.history.forEach(function (event) {
        var row = clone('event-row')
        fill(row, event)
        history.appendChild(row)
      })
    })
  }

  setUpCopyButtons()
  setUpCompose()
  setUpMessageList()
  setUpMessageDetail()
})()
