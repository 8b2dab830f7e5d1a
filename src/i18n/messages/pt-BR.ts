/** The Brazilian Portuguese catalogue (src/i18n/messages/en.ts defines the keys). */
import type { Messages } from "./en.js"
import { pluralFor } from "./Plural.js"

const plural = pluralFor("pt-BR")

export const ptBR: Messages = {
  languageName: "Português (Brasil)",
  listSeparator: ", ",

  status: {
    component: {
      operational: "Operacional",
      degraded: "Desempenho degradado",
      partial_outage: "Interrupção parcial",
      major_outage: "Interrupção grave",
      maintenance: "Em manutenção"
    },
    overall: {
      operational: "Todos os sistemas operacionais",
      degraded: "Desempenho degradado",
      partial_outage: "Interrupção parcial",
      major_outage: "Interrupção grave",
      maintenance: "Manutenção em andamento"
    },
    incident: {
      investigating: "Investigando",
      identified: "Identificado",
      monitoring: "Monitorando",
      resolved: "Resolvido"
    },
    maintenance: {
      scheduled: "Agendada",
      in_progress: "Em andamento",
      completed: "Concluída",
      cancelled: "Cancelada"
    },
    severity: {
      none: "Sem impacto",
      minor: "Impacto menor",
      major: "Impacto grave",
      critical: "Impacto crítico"
    }
  },

  layout: {
    statusTitle: (name) => `Status de ${name}`,
    pageTitle: (title, name) => `${title} · Status de ${name}`,
    rssTitle: (name) => `Status de ${name} (RSS)`,
    atomTitle: (name) => `Status de ${name} (Atom)`,
    skip: "Pular para o conteúdo",
    brandSuffix: " – status",
    followUpdates: "Acompanhe as atualizações:",
    rss: "RSS",
    atom: "Atom",
    history: "Histórico de incidentes",
    jsonApi: "API JSON",
    languages: "Idiomas",
    links: "Links"
  },

  page: {
    backToStatus: "Voltar ao status atual",
    activeIncidents: "Incidentes ativos",
    maintenance: "Manutenção",
    components: "Componentes",
    noComponents: "Ainda não há componentes listados.",
    recentHistory: "Histórico recente",
    noRecentIncidents: "Nenhum incidente relatado recentemente.",
    allPastIncidents: "Todos os incidentes anteriores",
    updated: (time) => `Atualizado em ${time}`,
    posted: (time) => `Publicado em ${time}`,
    window: (from, to) => `De ${from} até ${to}`,
    componentCount: (n) =>
      plural(n, { one: `${n} componente`, many: `${n} de componentes`, other: `${n} componentes` }),
    ofGroup: (group) => ` de ${group}`,
    affects: (names) => `afeta ${names}`,
    opened: (time) => `Aberto em ${time}`,
    resolved: (time) => `resolvido em ${time}`,
    updates: "Atualizações",
    postmortem: "Análise pós-incidente",
    published: (time) => `Publicada em ${time}`,
    plannedMaintenance: "Manutenção programada",
    fromTo: (from, to) => `De ${from} até ${to}`,
    details: "Detalhes",
    historyTitle: "Histórico de incidentes",
    noIncidents: "Nenhum incidente foi relatado.",
    historyPages: "Páginas do histórico",
    newer: "Incidentes mais recentes",
    older: "Incidentes mais antigos",
    pageOf: (page, pages) => `Página ${page} de ${pages}`
  },

  subscribe: {
    title: "Receba atualizações por e-mail",
    email: "Endereço de e-mail",
    components: "Componentes",
    tickNone: "Não marque nenhum para saber de todos os componentes.",
    allOf: (group) => `Todo o grupo ${group}`,
    submit: "Inscrever-se",
    feeds: (rss, atom) => `Primeiro enviamos um link de confirmação. Ou acompanhe o feed ${rss} ou ${atom}.`
  },

  preferences: {
    title: "Sua inscrição",
    sentTo: (email) => `As atualizações de incidentes e manutenções são enviadas para ${email}.`,
    noneListed:
      "Nenhum dos componentes que você escolheu está mais listado: você recebe apenas atualizações que não citam nenhum componente. Marque alguns, ou salve sem marcar nenhum para saber de todos.",
    noComponents: "Não há componentes listados: você recebe todas as atualizações.",
    choose: "Escolha sobre o que quer receber atualizações",
    unnamedReachAll: "Uma atualização que não cita nenhum componente chega a todos os inscritos.",
    save: "Salvar escolhas",
    stop: "Parar todas as atualizações",
    unsubscribe: (email) => `Cancelar a inscrição de ${email}`
  },

  forms: {
    notFound: "Não encontrado",
    unavailable:
      "A página de status está iniciando ou não consegue acessar o banco de dados. Tente novamente em instantes.",
    notSentTitle: "Não enviado",
    notSent: "Este formulário só pode ser enviado a partir desta página de status.",
    invalidEmail: "Informe um endereço de e-mail, como name@example.com.",
    componentsRefused: "Escolha entre os componentes listados: um deles não é mais oferecido.",
    tooManyComponents: (max) => `Escolha no máximo ${max} componentes, ou nenhum para saber de todos.`,
    tooManyRequests: "Muitos pedidos de inscrição. Tente novamente mais tarde.",
    subscribeAccepted: "Obrigado. Se este endereço ainda não estiver inscrito, um link de confirmação está a caminho.",
    linkNotValidTitle: "Link inválido",
    confirmationNotValid:
      "Este link de confirmação é desconhecido, já foi usado ou expirou. Inscreva-se novamente para receber outro.",
    confirmTitle: "Confirme sua inscrição",
    confirm: "Confirme para receber por e-mail as atualizações de incidentes e manutenções.",
    confirmButton: "Confirmar inscrição",
    confirmedTitle: "Inscrição confirmada",
    confirmed: (email) => `${email} passará a receber as atualizações de incidentes e manutenções.`,
    linkNotValid:
      "Nenhuma inscrição corresponde a este link: ela pode já ter terminado. Use o link do e-mail mais recente.",
    linkIncomplete: "Este link está incompleto. Use o link do e-mail mais recente.",
    savedEvery: "Salvo: você recebe atualizações de todos os componentes.",
    savedSome: (names) =>
      `Salvo: você recebe atualizações de ${names}, e das atualizações que não citam nenhum componente.`,
    unsubscribedTitle: "Inscrição cancelada",
    unsubscribed: (email) => `${email} não receberá mais atualizações.`,
    unsubscribeTitle: "Cancelar inscrição",
    unsubscribeAsk: (email) => `Parar de enviar atualizações de status para ${email}?`,
    unsubscribeButton: (email) => `Cancelar a inscrição de ${email}`,
    unsubscribeLinkIncomplete: "Este link de cancelamento está incompleto. Use o link do e-mail mais recente.",
    notUnsubscribedTitle: "Inscrição não cancelada",
    notUnsubscribed: "Nenhuma inscrição corresponde a este link: ela pode já ter terminado."
  },

  access: {
    title: "Senha necessária",
    intro: "Esta página de status é privada. Informe a senha que você recebeu para vê-la.",
    password: "Senha",
    submit: "Abrir a página de status",
    wrongPassword: "A senha não está correta. Verifique-a e tente novamente.",
    tooManyTries: "Tentativas demais. Aguarde alguns minutos e tente novamente."
  },

  uptime: {
    barLabel: (name) => `Disponibilidade diária de ${name}, da mais antiga para a mais recente`,
    groupBarLabel: (name) =>
      `Disponibilidade diária de ${name}, a menor entre seus componentes a cada dia, da mais antiga para a mais recente`,
    beforeComponent: "antes de este componente existir",
    beforeComponents: "antes de seus componentes existirem",
    noData: "sem dados",
    dayUptime: (percent) => `${percent} de disponibilidade`,
    lowest: " (seu componente mais baixo)",
    day: (day, text) => `${day}: ${text}`,
    withIncidents: (text, n, titles) => `${text}; ${plural(n, { one: "incidente", other: "incidentes" })}: ${titles}`,
    daysAgo: (n) => plural(n, { one: `há ${n} dia`, other: `há ${n} dias` }),
    today: "Hoje",
    noDataYet: "Ainda sem dados de disponibilidade",
    overDays: (percent, days) => `${percent} de disponibilidade em ${days} dias`,
    since: (percent, day) => `${percent} de disponibilidade desde ${day}`,
    groupTotal: (total) => `${total}, seu componente mais baixo`
  },

  responseTimes: {
    hoursAgo24: "há 24 h",
    hoursAgo12: "há 12 h",
    now: "Agora",
    title: (name) => `Tempos de resposta de ${name}, últimas 24 horas`,
    description: (regions) =>
      `O percentil 95 dos tempos de resposta de cada hora, uma linha por região (${regions}). Os valores seguem em uma tabela.`,
    caption: (name) => `Tempos de resposta de ${name} por região, últimas 24 horas (percentil 95 por hora)`,
    region: "Região",
    latestHour: "Última hora",
    slowestHour: "Hora mais lenta",
    checks: "Verificações",
    hourFrom: (value, time) => `${value} (hora a partir de ${time})`,
    none: "Tempos de resposta: nenhuma verificação obteve resposta nas últimas 24 horas.",
    figcaption: "Tempo de resposta por região, percentil 95 por hora, últimas 24 horas"
  },

  badge: {
    operational: "operacional",
    degraded: "desempenho degradado",
    partial_outage: "interrupção parcial",
    major_outage: "interrupção grave",
    maintenance: "em manutenção"
  },

  feeds: {
    description: (title) => `Incidentes e manutenções de ${title}`,
    status: {
      investigating: "investigando",
      identified: "identificado",
      monitoring: "monitorando",
      resolved: "resolvido",
      scheduled: "agendada",
      in_progress: "em andamento",
      completed: "concluída",
      cancelled: "cancelada"
    },
    incidentTitle: (title, status) => `${title} (${status})`,
    update: (status, message) => `${status}: ${message}`,
    maintenanceTitle: (title, status) => `Manutenção: ${title} (${status})`,
    window: (from, to) => `${from} até ${to}`,
    withDescription: (window, description) => `${window}: ${description}`,
    postmortem: "Análise pós-incidente"
  },

  mail: {
    verifySubject: (name) => `Confirme sua inscrição nas atualizações de status de ${name}`,
    verifyAsked: (name, email) =>
      `Alguém, esperamos que você, pediu para receber atualizações de status de ${name} em ${email}.`,
    verifyWithin: (hours) => `Confirme em até ${hours} horas abrindo este link:`,
    verifyLinkWithin: (link, hours) => `${link} em até ${hours} horas.`,
    verifyLink: "Confirme sua inscrição",
    verifyIgnore: "Se você não pediu isso, ignore esta mensagem: nada será enviado a você.",
    statusPage: (url) => `Página de status: ${url}`,
    viewStatusPage: "Ver a página de status",
    why: (email, name) =>
      `Você recebe esta mensagem porque ${email} se inscreveu nas atualizações de status de ${name}.`,
    chooseAt: (url) => `Escolha os componentes sobre os quais quer receber atualizações: ${url}`,
    unsubscribeAt: (url) => `Cancelar inscrição: ${url}`,
    choose: "Escolha os componentes sobre os quais quer receber atualizações",
    unsubscribe: "Cancelar inscrição",
    incidentHeadline: {
      "incident.created": "Novo incidente",
      "incident.updated": "Incidente atualizado",
      "incident.resolved": "Incidente resolvido"
    },
    maintenanceHeadline: {
      "maintenance.scheduled": "Manutenção agendada",
      "maintenance.started": "Manutenção iniciada",
      "maintenance.completed": "Manutenção concluída",
      "maintenance.reminder": "A manutenção começa em breve"
    },
    headline: (headline, title) => `${headline}: ${title}`,
    testPrefix: "[Teste] ",
    postmortemPublished: (title) => `Análise pós-incidente publicada: ${title}`,
    window: (from, to) => `De ${from} até ${to}`,
    reminder: (title, starts) => `Lembrete: a manutenção programada ${title} começa em ${starts}`,
    fact: (label, value) => `${label}: ${value}`,
    facts: {
      status: "Status",
      severity: "Gravidade",
      starts: "Início",
      ends: "Fim",
      time: "Horário"
    },
    status: {
      investigating: "Investigando",
      identified: "Identificado",
      monitoring: "Monitorando",
      resolved: "Resolvido",
      scheduled: "Agendada",
      in_progress: "Em andamento",
      completed: "Concluída",
      cancelled: "Cancelada"
    },
    severity: {
      none: "Nenhuma",
      minor: "Menor",
      major: "Grave",
      critical: "Crítica"
    }
  }
}
