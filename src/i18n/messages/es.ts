/** The Spanish catalogue (src/i18n/messages/en.ts defines the keys). */
import type { Messages } from "./en.js"
import { pluralFor } from "./Plural.js"

const plural = pluralFor("es")

export const es: Messages = {
  languageName: "Español",
  listSeparator: ", ",

  status: {
    component: {
      operational: "Operativo",
      degraded: "Rendimiento degradado",
      partial_outage: "Interrupción parcial",
      major_outage: "Interrupción grave",
      maintenance: "En mantenimiento"
    },
    overall: {
      operational: "Todos los sistemas operativos",
      degraded: "Rendimiento degradado",
      partial_outage: "Interrupción parcial",
      major_outage: "Interrupción grave",
      maintenance: "Mantenimiento en curso"
    },
    incident: {
      investigating: "Investigando",
      identified: "Identificado",
      monitoring: "En observación",
      resolved: "Resuelto"
    },
    maintenance: {
      scheduled: "Programado",
      in_progress: "En curso",
      completed: "Completado",
      cancelled: "Cancelado"
    },
    severity: {
      none: "Sin impacto",
      minor: "Impacto menor",
      major: "Impacto importante",
      critical: "Impacto crítico"
    }
  },

  layout: {
    statusTitle: (name) => `Estado de ${name}`,
    pageTitle: (title, name) => `${title} · Estado de ${name}`,
    rssTitle: (name) => `Estado de ${name} (RSS)`,
    atomTitle: (name) => `Estado de ${name} (Atom)`,
    skip: "Saltar al contenido",
    brandSuffix: " – estado",
    followUpdates: "Seguir las novedades:",
    rss: "RSS",
    atom: "Atom",
    history: "Historial de incidentes",
    jsonApi: "API JSON",
    languages: "Idiomas",
    links: "Enlaces"
  },

  page: {
    backToStatus: "Volver al estado actual",
    activeIncidents: "Incidentes activos",
    maintenance: "Mantenimiento",
    components: "Componentes",
    noComponents: "Todavía no hay componentes en la lista.",
    recentHistory: "Historial reciente",
    noRecentIncidents: "No se han notificado incidentes recientemente.",
    allPastIncidents: "Todos los incidentes anteriores",
    updated: (time) => `Actualizado el ${time}`,
    posted: (time) => `Publicado el ${time}`,
    window: (from, to) => `Del ${from} al ${to}`,
    componentCount: (n) =>
      plural(n, { one: `${n} componente`, many: `${n} de componentes`, other: `${n} componentes` }),
    ofGroup: (group) => ` de ${group}`,
    affects: (names) => `afecta a ${names}`,
    opened: (time) => `Abierto el ${time}`,
    resolved: (time) => `resuelto el ${time}`,
    updates: "Actualizaciones",
    postmortem: "Análisis posterior",
    published: (time) => `Publicado el ${time}`,
    plannedMaintenance: "Mantenimiento programado",
    fromTo: (from, to) => `Del ${from} al ${to}`,
    details: "Detalles",
    historyTitle: "Historial de incidentes",
    noIncidents: "No se ha notificado ningún incidente.",
    historyPages: "Páginas del historial",
    newer: "Incidentes más recientes",
    older: "Incidentes más antiguos",
    pageOf: (page, pages) => `Página ${page} de ${pages}`
  },

  subscribe: {
    title: "Recibir novedades por correo electrónico",
    email: "Correo electrónico",
    components: "Componentes",
    tickNone: "No marque ninguno para recibir novedades de todos los componentes.",
    allOf: (group) => `Todo el grupo ${group}`,
    submit: "Suscribirse",
    feeds: (rss, atom) => `Primero enviamos un enlace de confirmación. También puede seguir el canal ${rss} o ${atom}.`
  },

  preferences: {
    title: "Su suscripción",
    sentTo: (email) => `Las novedades de incidentes y mantenimientos se envían a ${email}.`,
    noneListed:
      "Ninguno de los componentes que eligió sigue en la lista: solo recibe las novedades que no nombran ningún componente. Marque algunos, o guarde sin marcar ninguno para recibir novedades de todos.",
    noComponents: "No hay componentes en la lista: recibe todas las novedades.",
    choose: "Elija sobre qué recibe novedades",
    unnamedReachAll: "Una novedad que no nombra ningún componente llega a todos los suscriptores.",
    save: "Guardar selección",
    stop: "Dejar de recibir novedades",
    unsubscribe: (email) => `Dar de baja ${email}`
  },

  forms: {
    notFound: "No encontrado",
    unavailable:
      "La página de estado se está iniciando o no puede acceder a su base de datos. Inténtelo de nuevo en un momento.",
    notSentTitle: "No enviado",
    notSent: "Este formulario solo se puede enviar desde esta página de estado.",
    invalidEmail: "Introduzca una dirección de correo electrónico, como name@example.com.",
    componentsRefused: "Elija entre los componentes de la lista: uno de ellos ya no está disponible.",
    tooManyComponents: (max) => `Elija como máximo ${max} componentes, o ninguno para recibir novedades de todos.`,
    tooManyRequests: "Demasiadas solicitudes de suscripción. Inténtelo de nuevo más tarde.",
    subscribeAccepted: "Gracias. Si esta dirección aún no está suscrita, le hemos enviado un enlace de confirmación.",
    linkNotValidTitle: "Enlace no válido",
    confirmationNotValid:
      "Este enlace de confirmación es desconocido, ya se usó o ha caducado. Suscríbase de nuevo para recibir otro.",
    confirmTitle: "Confirme su suscripción",
    confirm: "Confirme para recibir por correo electrónico las novedades de incidentes y mantenimientos.",
    confirmButton: "Confirmar suscripción",
    confirmedTitle: "Suscripción confirmada",
    confirmed: (email) => `${email} recibirá a partir de ahora las novedades de incidentes y mantenimientos.`,
    linkNotValid:
      "Ninguna suscripción corresponde a este enlace: puede que ya haya terminado. Use el enlace del correo más reciente.",
    linkIncomplete: "Este enlace está incompleto. Use el enlace del correo más reciente.",
    savedEvery: "Guardado: recibe novedades de todos los componentes.",
    savedSome: (names) =>
      `Guardado: recibe novedades de ${names}, y de las novedades que no nombran ningún componente.`,
    unsubscribedTitle: "Baja confirmada",
    unsubscribed: (email) => `${email} ya no recibirá más novedades.`,
    unsubscribeTitle: "Darse de baja",
    unsubscribeAsk: (email) => `¿Dejar de enviar novedades de estado a ${email}?`,
    unsubscribeButton: (email) => `Dar de baja ${email}`,
    unsubscribeLinkIncomplete: "Este enlace para darse de baja está incompleto. Use el enlace del correo más reciente.",
    notUnsubscribedTitle: "Baja no realizada",
    notUnsubscribed: "Ninguna suscripción corresponde a este enlace: puede que ya haya terminado."
  },

  access: {
    title: "Se necesita una contraseña",
    intro: "Esta página de estado es privada. Introduzca la contraseña que le dieron para verla.",
    password: "Contraseña",
    submit: "Abrir la página de estado",
    wrongPassword: "La contraseña no es correcta. Revísela e inténtelo de nuevo.",
    tooManyTries: "Demasiados intentos. Espere unos minutos y vuelva a intentarlo."
  },

  uptime: {
    barLabel: (name) => `Disponibilidad diaria de ${name}, de la más antigua a la más reciente`,
    groupBarLabel: (name) =>
      `Disponibilidad diaria de ${name}, la más baja de sus componentes cada día, de la más antigua a la más reciente`,
    beforeComponent: "antes de que existiera este componente",
    beforeComponents: "antes de que existieran sus componentes",
    noData: "sin datos",
    dayUptime: (percent) => `${percent} de disponibilidad`,
    lowest: " (su componente más bajo)",
    day: (day, text) => `${day}: ${text}`,
    withIncidents: (text, n, titles) => `${text}; ${plural(n, { one: "incidente", other: "incidentes" })}: ${titles}`,
    daysAgo: (n) => plural(n, { one: `hace ${n} día`, other: `hace ${n} días` }),
    today: "Hoy",
    noDataYet: "Aún no hay datos de disponibilidad",
    overDays: (percent, days) => `${percent} de disponibilidad en ${days} días`,
    since: (percent, day) => `${percent} de disponibilidad desde el ${day}`,
    groupTotal: (total) => `${total}, su componente más bajo`
  },

  responseTimes: {
    hoursAgo24: "hace 24 h",
    hoursAgo12: "hace 12 h",
    now: "Ahora",
    title: (name) => `Tiempos de respuesta de ${name}, últimas 24 horas`,
    description: (regions) =>
      `El percentil 95 de los tiempos de respuesta de cada hora, una línea por región (${regions}). Los valores siguen en una tabla.`,
    caption: (name) => `Tiempos de respuesta de ${name} por región, últimas 24 horas (percentil 95 por hora)`,
    region: "Región",
    latestHour: "Última hora",
    slowestHour: "Hora más lenta",
    checks: "Comprobaciones",
    hourFrom: (value, time) => `${value} (hora desde ${time})`,
    none: "Tiempos de respuesta: ninguna comprobación obtuvo respuesta en las últimas 24 horas.",
    figcaption: "Tiempo de respuesta por región, percentil 95 por hora, últimas 24 horas"
  },

  badge: {
    operational: "operativo",
    degraded: "rendimiento degradado",
    partial_outage: "interrupción parcial",
    major_outage: "interrupción grave",
    maintenance: "en mantenimiento"
  },

  feeds: {
    description: (title) => `Incidentes y mantenimientos de ${title}`,
    status: {
      investigating: "investigando",
      identified: "identificado",
      monitoring: "en observación",
      resolved: "resuelto",
      scheduled: "programado",
      in_progress: "en curso",
      completed: "completado",
      cancelled: "cancelado"
    },
    incidentTitle: (title, status) => `${title} (${status})`,
    update: (status, message) => `${status}: ${message}`,
    maintenanceTitle: (title, status) => `Mantenimiento: ${title} (${status})`,
    window: (from, to) => `${from} a ${to}`,
    withDescription: (window, description) => `${window}: ${description}`,
    postmortem: "Análisis posterior"
  },

  mail: {
    verifySubject: (name) => `Confirme su suscripción a las novedades de estado de ${name}`,
    verifyAsked: (name, email) =>
      `Alguien, esperamos que usted, pidió recibir novedades de estado de ${name} en ${email}.`,
    verifyWithin: (hours) => `Confirme en las próximas ${hours} horas abriendo este enlace:`,
    verifyLinkWithin: (link, hours) => `${link} en las próximas ${hours} horas.`,
    verifyLink: "Confirme su suscripción",
    verifyIgnore: "Si no lo pidió, ignore este mensaje: no le enviaremos nada.",
    statusPage: (url) => `Página de estado: ${url}`,
    viewStatusPage: "Ver la página de estado",
    why: (email, name) => `Recibe este mensaje porque ${email} se suscribió a las novedades de estado de ${name}.`,
    chooseAt: (url) => `Elija los componentes sobre los que recibe novedades: ${url}`,
    unsubscribeAt: (url) => `Darse de baja: ${url}`,
    choose: "Elija los componentes sobre los que recibe novedades",
    unsubscribe: "Darse de baja",
    incidentHeadline: {
      "incident.created": "Nuevo incidente",
      "incident.updated": "Incidente actualizado",
      "incident.resolved": "Incidente resuelto"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "Mantenimiento programado",
      "maintenance.started": "Mantenimiento iniciado",
      "maintenance.completed": "Mantenimiento completado",
      "maintenance.reminder": "El mantenimiento empieza pronto"
    },
    headline: (headline, title) => `${headline}: ${title}`,
    testPrefix: "[Prueba] ",
    postmortemPublished: (title) => `Análisis posterior publicado: ${title}`,
    window: (from, to) => `Del ${from} al ${to}`,
    reminder: (title, starts) => `Recordatorio: el mantenimiento programado ${title} empieza el ${starts}`,
    fact: (label, value) => `${label}: ${value}`,
    facts: {
      status: "Estado",
      severity: "Gravedad",
      starts: "Inicio",
      ends: "Fin",
      time: "Hora"
    },
    status: {
      investigating: "Investigando",
      identified: "Identificado",
      monitoring: "En observación",
      resolved: "Resuelto",
      scheduled: "Programado",
      in_progress: "En curso",
      completed: "Completado",
      cancelled: "Cancelado"
    },
    severity: {
      none: "Ninguna",
      minor: "Menor",
      major: "Importante",
      critical: "Crítica"
    }
  }
}
