/** The German catalogue (src/i18n/messages/en.ts defines the keys). */
import type { Messages } from "./en.js"
import { pluralFor } from "./Plural.js"

const plural = pluralFor("de")

export const de: Messages = {
  languageName: "Deutsch",
  listSeparator: ", ",

  status: {
    component: {
      operational: "Betriebsbereit",
      degraded: "Eingeschränkte Leistung",
      partial_outage: "Teilweiser Ausfall",
      major_outage: "Schwerer Ausfall",
      maintenance: "In Wartung"
    },
    overall: {
      operational: "Alle Systeme betriebsbereit",
      degraded: "Eingeschränkte Leistung",
      partial_outage: "Teilweiser Ausfall",
      major_outage: "Schwerer Ausfall",
      maintenance: "Wartung läuft"
    },
    incident: {
      investigating: "Wird untersucht",
      identified: "Ursache erkannt",
      monitoring: "Wird beobachtet",
      resolved: "Behoben"
    },
    maintenance: {
      scheduled: "Geplant",
      in_progress: "Läuft",
      completed: "Abgeschlossen",
      cancelled: "Abgesagt"
    },
    severity: {
      none: "Keine Auswirkung",
      minor: "Geringe Auswirkung",
      major: "Erhebliche Auswirkung",
      critical: "Kritische Auswirkung"
    }
  },

  layout: {
    statusTitle: (name) => `${name} Status`,
    pageTitle: (title, name) => `${title} · ${name} Status`,
    rssTitle: (name) => `${name} Status (RSS)`,
    atomTitle: (name) => `${name} Status (Atom)`,
    skip: "Zum Inhalt springen",
    brandSuffix: " Status",
    followUpdates: "Updates verfolgen:",
    rss: "RSS",
    atom: "Atom",
    history: "Vorfallverlauf",
    jsonApi: "JSON-API",
    languages: "Sprachen",
    links: "Links"
  },

  page: {
    backToStatus: "Zurück zum aktuellen Status",
    activeIncidents: "Aktuelle Vorfälle",
    maintenance: "Wartung",
    components: "Komponenten",
    noComponents: "Noch sind keine Komponenten aufgeführt.",
    recentHistory: "Letzte Vorfälle",
    noRecentIncidents: "In letzter Zeit wurden keine Vorfälle gemeldet.",
    allPastIncidents: "Alle vergangenen Vorfälle",
    updated: (time) => `Aktualisiert am ${time}`,
    posted: (time) => `Veröffentlicht am ${time}`,
    window: (from, to) => `${from} bis ${to}`,
    componentCount: (n) => plural(n, { one: `${n} Komponente`, other: `${n} Komponenten` }),
    ofGroup: (group) => ` von ${group}`,
    affects: (names) => `betrifft ${names}`,
    opened: (time) => `Eröffnet am ${time}`,
    resolved: (time) => `behoben am ${time}`,
    updates: "Updates",
    postmortem: "Nachbetrachtung",
    published: (time) => `Veröffentlicht am ${time}`,
    plannedMaintenance: "Geplante Wartung",
    fromTo: (from, to) => `Von ${from} bis ${to}`,
    details: "Details",
    historyTitle: "Vorfallverlauf",
    noIncidents: "Es wurden keine Vorfälle gemeldet.",
    historyPages: "Seiten des Verlaufs",
    newer: "Neuere Vorfälle",
    older: "Ältere Vorfälle",
    pageOf: (page, pages) => `Seite ${page} von ${pages}`
  },

  subscribe: {
    title: "Updates per E-Mail erhalten",
    email: "E-Mail-Adresse",
    components: "Komponenten",
    tickNone: "Nichts ankreuzen, um über alle Komponenten informiert zu werden.",
    allOf: (group) => `Alle in ${group}`,
    submit: "Abonnieren",
    feeds: (rss, atom) =>
      `Wir senden Ihnen zuerst einen Bestätigungslink. Oder folgen Sie dem ${rss}- oder ${atom}-Feed.`
  },

  preferences: {
    title: "Ihr Abonnement",
    sentTo: (email) => `Updates zu Vorfällen und Wartungen gehen an ${email}.`,
    noneListed:
      "Keine der gewählten Komponenten wird noch aufgeführt: Sie erhalten nur Updates, die keine Komponente nennen. Kreuzen Sie welche an, oder speichern Sie ohne Auswahl, um über alle informiert zu werden.",
    noComponents: "Es sind keine Komponenten aufgeführt: Sie erhalten jedes Update.",
    choose: "Wählen Sie, worüber Sie informiert werden",
    unnamedReachAll: "Ein Update, das keine Komponente nennt, erreicht alle Abonnenten.",
    save: "Auswahl speichern",
    stop: "Alle Updates abbestellen",
    unsubscribe: (email) => `${email} abmelden`
  },

  forms: {
    notFound: "Nicht gefunden",
    unavailable:
      "Die Statusseite startet gerade oder erreicht ihre Datenbank nicht. Versuchen Sie es gleich noch einmal.",
    notSentTitle: "Nicht gesendet",
    notSent: "Dieses Formular kann nur von dieser Statusseite aus gesendet werden.",
    invalidEmail: "Geben Sie eine E-Mail-Adresse ein, etwa name@example.com.",
    componentsRefused: "Wählen Sie unter den aufgeführten Komponenten: eine davon wird nicht mehr angeboten.",
    tooManyComponents: (max) =>
      `Wählen Sie höchstens ${max} Komponenten, oder keine, um über alle informiert zu werden.`,
    tooManyRequests: "Zu viele Anmeldeversuche. Bitte versuchen Sie es später erneut.",
    subscribeAccepted:
      "Danke. Wenn diese Adresse noch nicht angemeldet ist, ist ein Bestätigungslink an sie unterwegs.",
    linkNotValidTitle: "Link ungültig",
    confirmationNotValid:
      "Dieser Bestätigungslink ist unbekannt, schon benutzt oder abgelaufen. Melden Sie sich erneut an, um einen neuen zu erhalten.",
    confirmTitle: "Abonnement bestätigen",
    confirm: "Bestätigen Sie, um Updates zu Vorfällen und Wartungen per E-Mail zu erhalten.",
    confirmButton: "Abonnement bestätigen",
    confirmedTitle: "Abonnement bestätigt",
    confirmed: (email) => `${email} erhält ab jetzt Updates zu Vorfällen und Wartungen.`,
    linkNotValid:
      "Zu diesem Link gibt es kein Abonnement: Es ist vielleicht schon beendet. Verwenden Sie den Link aus der neuesten E-Mail.",
    linkIncomplete: "Dieser Link ist unvollständig. Verwenden Sie den Link aus der neuesten E-Mail.",
    savedEvery: "Gespeichert: Sie werden über alle Komponenten informiert.",
    savedSome: (names) =>
      `Gespeichert: Sie werden über ${names} informiert, und über Updates, die keine Komponente nennen.`,
    unsubscribedTitle: "Abgemeldet",
    unsubscribed: (email) => `${email} erhält keine Updates mehr.`,
    unsubscribeTitle: "Abmelden",
    unsubscribeAsk: (email) => `Keine Status-Updates mehr an ${email} senden?`,
    unsubscribeButton: (email) => `${email} abmelden`,
    unsubscribeLinkIncomplete: "Dieser Abmeldelink ist unvollständig. Verwenden Sie den Link aus der neuesten E-Mail.",
    notUnsubscribedTitle: "Nicht abgemeldet",
    notUnsubscribed: "Zu diesem Link gibt es kein Abonnement: Es ist vielleicht schon beendet."
  },

  access: {
    title: "Passwort erforderlich",
    intro: "Diese Statusseite ist nicht öffentlich. Geben Sie das Passwort ein, das Sie erhalten haben.",
    password: "Passwort",
    submit: "Statusseite öffnen",
    wrongPassword: "Das Passwort ist nicht richtig. Prüfen Sie es und versuchen Sie es erneut.",
    tooManyTries: "Zu viele Versuche. Warten Sie einige Minuten und versuchen Sie es dann erneut."
  },

  uptime: {
    barLabel: (name) => `Tägliche Verfügbarkeit von ${name}, älteste zuerst`,
    groupBarLabel: (name) =>
      `Tägliche Verfügbarkeit von ${name}, jeden Tag die niedrigste seiner Komponenten, älteste zuerst`,
    beforeComponent: "bevor diese Komponente existierte",
    beforeComponents: "bevor seine Komponenten existierten",
    noData: "keine Daten",
    dayUptime: (percent) => `${percent} Verfügbarkeit`,
    lowest: " (seine niedrigste Komponente)",
    day: (day, text) => `${day}: ${text}`,
    withIncidents: (text, n, titles) => `${text}; ${plural(n, { one: "Vorfall", other: "Vorfälle" })}: ${titles}`,
    daysAgo: (n) => plural(n, { one: `vor ${n} Tag`, other: `vor ${n} Tagen` }),
    today: "Heute",
    noDataYet: "Noch keine Verfügbarkeitsdaten",
    overDays: (percent, days) => `${percent} Verfügbarkeit in ${days} Tagen`,
    since: (percent, day) => `${percent} Verfügbarkeit seit ${day}`,
    groupTotal: (total) => `${total}, seine niedrigste Komponente`
  },

  responseTimes: {
    hoursAgo24: "vor 24 Std.",
    hoursAgo12: "vor 12 Std.",
    now: "Jetzt",
    title: (name) => `Antwortzeiten von ${name}, letzte 24 Stunden`,
    description: (regions) =>
      `Das 95. Perzentil der Antwortzeiten jeder Stunde, eine Linie je Region (${regions}). Die Werte folgen in einer Tabelle.`,
    caption: (name) => `Antwortzeiten von ${name} nach Region, letzte 24 Stunden (95. Perzentil je Stunde)`,
    region: "Region",
    latestHour: "Letzte Stunde",
    slowestHour: "Langsamste Stunde",
    checks: "Prüfungen",
    hourFrom: (value, time) => `${value} (Stunde ab ${time})`,
    none: "Antwortzeiten: In den letzten 24 Stunden hat keine Prüfung eine Antwort erhalten.",
    figcaption: "Antwortzeit nach Region, 95. Perzentil je Stunde, letzte 24 Stunden"
  },

  badge: {
    operational: "betriebsbereit",
    degraded: "eingeschränkt",
    partial_outage: "teilweiser Ausfall",
    major_outage: "schwerer Ausfall",
    maintenance: "in Wartung"
  },

  feeds: {
    description: (title) => `Vorfälle und Wartungen von ${title}`,
    status: {
      investigating: "wird untersucht",
      identified: "Ursache erkannt",
      monitoring: "wird beobachtet",
      resolved: "behoben",
      scheduled: "geplant",
      in_progress: "läuft",
      completed: "abgeschlossen",
      cancelled: "abgesagt"
    },
    incidentTitle: (title, status) => `${title} (${status})`,
    update: (status, message) => `${status}: ${message}`,
    maintenanceTitle: (title, status) => `Wartung: ${title} (${status})`,
    window: (from, to) => `${from} bis ${to}`,
    withDescription: (window, description) => `${window}: ${description}`,
    postmortem: "Nachbetrachtung"
  },

  mail: {
    verifySubject: (name) => `Bestätigen Sie Ihr Abonnement der Status-Updates von ${name}`,
    verifyAsked: (name, email) => `Jemand, hoffentlich Sie, möchte Status-Updates von ${name} an ${email} erhalten.`,
    verifyWithin: (hours) => `Bestätigen Sie innerhalb von ${hours} Stunden, indem Sie diesen Link öffnen:`,
    verifyLinkWithin: (link, hours) => `${link} innerhalb von ${hours} Stunden.`,
    verifyLink: "Bestätigen Sie Ihr Abonnement",
    verifyIgnore:
      "Wenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Sie erhalten dann nichts von uns.",
    statusPage: (url) => `Statusseite: ${url}`,
    viewStatusPage: "Zur Statusseite",
    why: (email, name) => `Sie erhalten diese Nachricht, weil ${email} die Status-Updates von ${name} abonniert hat.`,
    chooseAt: (url) => `Wählen Sie die Komponenten, über die Sie informiert werden: ${url}`,
    unsubscribeAt: (url) => `Abmelden: ${url}`,
    choose: "Wählen Sie die Komponenten, über die Sie informiert werden",
    unsubscribe: "Abmelden",
    incidentHeadline: {
      "incident.created": "Neuer Vorfall",
      "incident.updated": "Vorfall aktualisiert",
      "incident.resolved": "Vorfall behoben"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "Wartung geplant",
      "maintenance.started": "Wartung begonnen",
      "maintenance.completed": "Wartung abgeschlossen",
      "maintenance.reminder": "Wartung beginnt bald"
    },
    headline: (headline, title) => `${headline}: ${title}`,
    testPrefix: "[Test] ",
    postmortemPublished: (title) => `Nachbetrachtung veröffentlicht: ${title}`,
    window: (from, to) => `Von ${from} bis ${to}`,
    reminder: (title, starts) => `Erinnerung: Die geplante Wartung ${title} beginnt am ${starts}`,
    fact: (label, value) => `${label}: ${value}`,
    facts: {
      status: "Status",
      severity: "Schweregrad",
      starts: "Beginn",
      ends: "Ende",
      time: "Zeit"
    },
    status: {
      investigating: "Wird untersucht",
      identified: "Ursache erkannt",
      monitoring: "Wird beobachtet",
      resolved: "Behoben",
      scheduled: "Geplant",
      in_progress: "Läuft",
      completed: "Abgeschlossen",
      cancelled: "Abgesagt"
    },
    severity: {
      none: "Keiner",
      minor: "Gering",
      major: "Erheblich",
      critical: "Kritisch"
    }
  }
}
