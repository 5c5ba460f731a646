// RFC 6570 templates as far as a person fills them: the variables, and the expansion of levels 1-3 operators.

const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g;

/** The variable names of `template`, in order, without modifiers (`*`, `:n`). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(EXPRESSION))
    for (const spec of (m[2] as string).split(',')) {
      const name = spec.replace(/(\*|:\d+)$/, '').trim();
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  return names;
}

/** `template` with `values` filled in (unset variables are left out, as RFC 6570 does). */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_all, op: string, list: string) => {
    const names = list.split(',').map((s) => s.replace(/(\*|:\d+)$/, '').trim());
    const set = names.filter((n) => values[n] !== undefined && values[n] !== '');
    const reserved = op === '+' || op === '#';
    const enc = (v: string) => (reserved ? encodeURI(v) : encodeURIComponent(v));
    if (set.length === 0) return '';
    switch (op) {
      case '?':
      case '&':
        return op + set.map((n) => `${n}=${enc(values[n] as string)}`).join('&');
      case ';':
        return set.map((n) => `;${n}=${enc(values[n] as string)}`).join('');
      case '.':
      case '/':
        return set.map((n) => op + enc(values[n] as string)).join('');
      case '#':
        return `#${set.map((n) => enc(values[n] as string)).join(',')}`;
      default:
        return set.map((n) => enc(values[n] as string)).join(',');
    }
  });
}
