// The words of tool definitions and of the requests that look for them: names split on case and separators, words
// lowercased and stemmed, words that say nothing dropped, and common verbs and nouns that tools name in many ways
// (get / fetch / retrieve, folder / directory) joined under one concept; the word a negation governs dropped. Pure
// and dependency-free.

/** Words that carry nothing for finding a tool (the person's and the descriptions' filler). */
const STOP = new Set(
  (
    'a an the of to in on for with by from at as into onto about via per and or but not no nor is are was were be ' +
    'been being do does did done has have had having it its this that these those there here than then ' +
    'so such if else when while which whom whose what where why how can could would should will shall may ' +
    'might must i me my mine we us our you your yours he she they them their his her some any each every all ' +
    'both either neither one ones other another more most much few lot lots please want wants wanted need ' +
    'needs like just also only very really quite using use used uses tool tools function able let lets help ' +
    'something thing things someone somebody anything stuff etc eg ie again whether ' +
    'given optional default defaults specified specify provided provide returns return returned ' +
    // What is left of a contraction (what's, don't, I'll, we're, I've, I'd, I'm).
    's t ll re ve d m don doesn didn isn aren wasn weren shouldn couldn wouldn'
  ).split(/\s+/),
);

/** Words that negate the next word that says something (`t` is what `don't` leaves). */
const NEGATIONS = new Set(['not', 'no', 'never', 'without', 'except', 'excluding', 'nor', 't']);

/**
 * Concepts: each line's words (stemmed) also count as the line's first word, marked `~`, so a request saying "fetch"
 * finds a tool named `get_…`. Kept to verbs and nouns that tool sets really spell in several ways.
 */
const CONCEPTS = [
  'get fetch retrieve obtain read load lookup',
  'list enumerate browse catalog',
  'show view display print see',
  'create add new make insert generate',
  'update edit modify change set patch alter amend',
  'delete remove erase destroy drop discard trash purge',
  'search find query seek locate discover grep',
  'run execute exec invoke launch trigger perform',
  'stop kill terminate halt abort cancel',
  'send post notify dm',
  'write save store persist put',
  'move rename relocate',
  'copy duplicate clone',
  'navigate go goto visit open',
  'screenshot capture snapshot',
  'click press tap',
  'type fill enter input',
  'close resolve finish complete',
  'file document doc',
  'folder directory dir',
  'repo repository',
  'issue ticket bug',
  'user member person people account',
  'message chat conversation',
  'email mail inbox gmail',
  'database db',
  'image picture photo',
  'event meeting appointment calendar',
  'task todo',
  'url link website webpage site web',
  'location place address',
  'route directions',
  'pr pull merge request',
  'error exception failure crash',
  'log logs',
  'weather forecast',
  'summary summarize',
  'sum add plus total',
  'remember memorize memory',
  'comment note reply annotate',
  'approve accept review',
  'spreadsheet sheet workbook excel',
  'slide presentation deck',
  'table grid',
  'tab page',
  'project workspace space',
  'status state',
  'schedule reschedule plan',
  'notification alert ping',
  'transcript caption subtitle',
  'diagram chart graph plot',
  'database collection',
  'cluster kubernetes k8s',
  'whoami who am current profile',
  'count many number total',
  'hit click push',
  'internet online web google',
  'look search lookup',
  'scrape extract crawl pull',
  'subtask child nest sub',
  'mute silence snooze downtime',
  'reaction emoji react thumb',
  'thread discussion conversation',
  'diff compare changed differ',
  'branch fork',
  'permission access share shared',
  'upload attach',
  'download export save',
  'sprint iteration cycle',
  'contact people address',
  'deploy launch release ship',
  'error issue problem broke broken fail failed failure',
  'slow performance speed profile trace',
  'test spec',
  'reason think step',
  'question ask answer',
  'docs documentation manual guide',
];

/**
 * Everyday phrasings of what tools do, read as the words tools use for it: phrasal verbs and question forms of
 * general English (`get rid of` is a deletion, `how many` a count). The phrase's own words stay too.
 */
const PHRASES: Record<string, string> = {
  'what is in': 'list contents',
  'what s in': 'list contents',
  'what is inside': 'list contents',
  'what s inside': 'list contents',
  'how many': 'count',
  'how much': 'count total',
  'number of': 'count',
  'get rid of': 'delete',
  'throw away': 'delete',
  'clean up': 'delete clean',
  'set up': 'create configure',
  'look up': 'search get',
  'look for': 'search find',
  'look at': 'view read',
  'find out': 'search get',
  'turn on': 'enable',
  'turn off': 'disable',
  'switch on': 'enable',
  'switch off': 'disable',
  'sign in': 'login authenticate',
  'log in': 'login authenticate',
  'sign out': 'logout',
  'log out': 'logout',
  'sign up': 'register account',
  'keep an eye on': 'monitor watch',
  'keep track of': 'track monitor',
  'tell me about': 'get details info',
  'more about': 'details info',
  'go back': 'back previous',
  'go to': 'navigate open',
  'put back': 'restore',
  'bring back': 'restore',
  'speed up': 'performance',
  'fill in': 'fill',
  'fill out': 'fill form',
  'write down': 'note save',
  'note down': 'note save',
  'jot down': 'note save',
  'check on': 'status',
  'sum up': 'summarize',
  'figure out': 'analyze',
  'hand over': 'assign transfer',
  'pass on': 'forward',
  'pick up': 'get',
  'set aside': 'save stash',
  'put aside': 'save stash',
  'back up': 'backup copy',
  'start over': 'reset restart',
  'try again': 'retry rerun',
  'who is': 'user',
  'who s': 'user',
  'who are': 'users members',
  'when is': 'date time',
  'where is': 'location find',
  'shut down': 'stop',
  'break down': 'analyze',
  'carry out': 'run execute',
};
/** The phrases by their first word, longest first. */
const phrases = new Map<string, { words: string[]; means: string }[]>();
for (const [phrase, means] of Object.entries(PHRASES)) {
  const words = phrase.split(' ');
  const first = words[0] as string;
  const list = phrases.get(first) ?? [];
  list.push({ words, means });
  list.sort((a, b) => b.words.length - a.words.length);
  phrases.set(first, list);
}

/** The concepts of each (stemmed) word: a word may stand in several lines (`change` is an update and a diff). */
const concepts = new Map<string, string[]>();
for (const line of CONCEPTS) {
  const words = line.split(' ').map(stem);
  const head = `~${words[0] as string}`;
  for (const w of words) {
    const known = concepts.get(w);
    if (!known) concepts.set(w, [head]);
    else if (!known.includes(head)) known.push(head);
  }
}

/** `camelCase`, `snake_case`, `kebab-case`, `dotted.names` and `HTTPServer` as separate lowercase words. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * A light English stemmer: plurals, `-ing`, `-ed`, `-ion` (and the consonant they doubled), a final `e`, so that
 * create / creates / created / creating / creation meet. Not Porter's: short and predictable, for names and requests.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  let suffix = true;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 5 && w.endsWith('ion')) w = w.slice(0, -3);
  else suffix = false;
  // running → run, stopped → stop; but fill, pass and buzz keep theirs, and add stays add.
  if (suffix && w.length > 3 && /([b-df-hj-kmnp-rtv-y])\1$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** The terms of a text: its words, stemmed, without stop words; each word of a concept also as the concept (`~…`). */
export function terms(text: string): string[] {
  const words = splitWords(text);
  const out = wordTerms(words);
  for (let i = 0; i < words.length; i++)
    for (const p of phrases.get(words[i] as string) ?? [])
      if (p.words.every((w, j) => words[i + j] === w)) {
        out.push(...wordTerms(p.means.split(' ')));
        break;
      }
  return out;
}

/** The terms of a text's words. */
function wordTerms(words: readonly string[]): string[] {
  const out: string[] = [];
  let negated = false;
  for (const word of words) {
    // The word a negation governs is not asked for: "without downloading it", "NOT counts", "don't merge".
    if (NEGATIONS.has(word)) {
      negated = true;
      continue;
    }
    // Numbers (an id, a count, a line) name no tool; `s3` and `v2` keep their letters and stay.
    if (STOP.has(word) || /^[0-9]+$/.test(word)) continue;
    if (negated) {
      negated = false;
      continue;
    }
    const s = stem(word);
    out.push(s);
    const c = concepts.get(s);
    if (c !== undefined) out.push(...c);
  }
  return out;
}
