import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpkitError } from '../jsonrpc/errors.js';
import { MAX_TEMPLATE_LENGTH, MAX_URI_LENGTH, UriTemplate, type UriTemplateValue } from './uri-template.js';

// The variables of RFC 6570 section 3.2.
const vars: Record<string, UriTemplateValue> = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  keys: { semi: ';', dot: '.', comma: ',' },
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_keys: {},
  undef: undefined,
};

function expandAll(cases: [string, string][]): void {
  for (const [template, expected] of cases) {
    assert.equal(new UriTemplate(template).expand(vars), expected, template);
  }
}

test('RFC 6570 section 1.2 level 1 and level 2 examples', () => {
  expandAll([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['X{#var}', 'X#value'],
    ['X{#hello}', 'X#Hello%20World!'],
  ]);
});

test('RFC 6570 section 1.2 level 3 examples', () => {
  expandAll([
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
  ]);
});

test('RFC 6570 section 1.2 level 4 examples', () => {
  expandAll([
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['{keys}', 'semi,%3B,dot,.,comma,%2C'],
    ['{keys*}', 'semi=%3B,dot=.,comma=%2C'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+list}', 'red,green,blue'],
    ['{+list*}', 'red,green,blue'],
    ['{+keys}', 'semi,;,dot,.,comma,,'],
    ['{+keys*}', 'semi=;,dot=.,comma=,'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{#list}', '#red,green,blue'],
    ['{#list*}', '#red,green,blue'],
    ['{#keys}', '#semi,;,dot,.,comma,,'],
    ['{#keys*}', '#semi=;,dot=.,comma=,'],
    ['X{.var:3}', 'X.val'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    ['X{.keys}', 'X.semi,%3B,dot,.,comma,%2C'],
    ['X{.keys*}', 'X.semi=%3B.dot=..comma=%2C'],
    ['{/var:1,var}', '/v/value'],
    ['{/list}', '/red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    ['{/keys}', '/semi,%3B,dot,.,comma,%2C'],
    ['{/keys*}', '/semi=%3B/dot=./comma=%2C'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    ['{;keys}', ';keys=semi,%3B,dot,.,comma,%2C'],
    ['{;keys*}', ';semi=%3B;dot=.;comma=%2C'],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['{?keys}', '?keys=semi,%3B,dot,.,comma,%2C'],
    ['{?keys*}', '?semi=%3B&dot=.&comma=%2C'],
    ['{&var:3}', '&var=val'],
    ['{&list}', '&list=red,green,blue'],
    ['{&list*}', '&list=red&list=green&list=blue'],
    ['{&keys}', '&keys=semi,%3B,dot,.,comma,%2C'],
    ['{&keys*}', '&semi=%3B&dot=.&comma=%2C'],
  ]);
});

test('RFC 6570 section 3.2 examples: variable, simple, reserved and fragment expansion', () => {
  expandAll([
    ['{count}', 'one,two,three'],
    ['{count*}', 'one,two,three'],
    ['{/count}', '/one,two,three'],
    ['{/count*}', '/one/two/three'],
    ['{;count}', ';count=one,two,three'],
    ['{;count*}', ';count=one;count=two;count=three'],
    ['{?count}', '?count=one,two,three'],
    ['{?count*}', '?count=one&count=two&count=three'],
    ['{&count*}', '&count=one&count=two&count=three'],
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
    ['?{x,empty}', '?1024,'],
    ['?{x,undef}', '?1024'],
    ['?{undef,y}', '?768'],
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['O{+empty}X', 'OX'],
    ['O{+undef}X', 'OX'],
    ['up{+path}{var}/here', 'up/foo/barvalue/here'],
    ['{#half}', '#50%25'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
  ]);
});

test('RFC 6570 section 3.2 examples: label, path segment, path-style and form expansion', () => {
  expandAll([
    ['{.who}', '.fred'],
    ['{.who,who}', '.fred.fred'],
    ['{.half,who}', '.50%25.fred'],
    ['www{.dom*}', 'www.example.com'],
    ['X{.empty}', 'X.'],
    ['X{.undef}', 'X'],
    ['X{.empty_keys}', 'X'],
    ['X{.empty_keys*}', 'X'],
    ['{/who}', '/fred'],
    ['{/who,who}', '/fred/fred'],
    ['{/half,who}', '/50%25/fred'],
    ['{/who,dub}', '/fred/me%2Ftoo'],
    ['{/var,empty}', '/value/'],
    ['{/var,undef}', '/value'],
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;empty}', ';empty'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;v,bar,who}', ';v=6;who=fred'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    ['{?who}', '?who=fred'],
    ['{?half}', '?half=50%25'],
    ['{?x,y,undef}', '?x=1024&y=768'],
    ['{&who}', '&who=fred'],
    ['{&half}', '&half=50%25'],
  ]);
});

test('expansion encodes Unicode as UTF-8, keeps valid triplets in reserved mode and never throws on lone surrogates', () => {
  assert.throws(() => new UriTemplate('{a}|{+a}'), McpkitError); // "|" is not a literal character
  assert.equal(new UriTemplate('{a}').expand({ a: 'é/😀' }), '%C3%A9%2F%F0%9F%98%80');
  assert.equal(new UriTemplate('{+a}').expand({ a: '%41%zz' }), '%41%25zz');
  assert.equal(new UriTemplate('{a}').expand({ a: 'x\uD800' }), 'x%EF%BF%BD');
  assert.equal(new UriTemplate('{a:2}').expand({ a: '😀😀😀' }), '%F0%9F%98%80%F0%9F%98%80');
  assert.equal(new UriTemplate('notes://日本/{id}').expand({ id: '1' }), 'notes://%E6%97%A5%E6%9C%AC/1');
});

test('matches the MCP example templates', () => {
  assert.deepEqual(new UriTemplate('test://template/{id}/data').match('test://template/123/data'), {
    id: '123',
  });
  assert.equal(new UriTemplate('test://template/{id}/data').match('test://template/1/2/data'), undefined);
  assert.equal(new UriTemplate('test://template/{id}/data').match('test://other/1/data'), undefined);
  assert.deepEqual(new UriTemplate('file:///{+path}').match('file:///home/ada/My%20Notes.md'), {
    path: 'home/ada/My Notes.md',
  });
  const users = new UriTemplate('/users/{id}{?fields,sort}');
  assert.deepEqual(users.match('/users/42'), { id: '42' });
  assert.deepEqual(users.match('/users/42?fields=name,email&sort=asc'), {
    id: '42',
    fields: 'name,email',
    sort: 'asc',
  });
  assert.deepEqual(users.match('/users/42?sort=desc&fields=a'), { id: '42', fields: 'a', sort: 'desc' });
  assert.deepEqual(users.match('/users/42?other=1&sort=x'), { id: '42', sort: 'x' });
  assert.equal(users.match('/users/42/extra'), undefined);
  assert.deepEqual(users.variableNames, ['id', 'fields', 'sort']);
  assert.equal(users.toString(), '/users/{id}{?fields,sort}');
});

test('matches every operator a server needs', () => {
  const cases: [string, string, Record<string, string | string[]> | undefined][] = [
    ['{var}', 'a%20b', { var: 'a b' }],
    ['{x,y}', '1024,768', { x: '1024', y: '768' }],
    ['{list*}', 'red,green,blue', { list: ['red', 'green', 'blue'] }],
    ['{+base}index', 'http://example.com/home/index', { base: 'http://example.com/home/' }],
    ['{+path}{#frag}', '/a/b#c,d', { path: '/a/b', frag: 'c,d' }],
    ['{name}.json', 'archive.tar.json', { name: 'archive.tar' }],
    ['{file}.{ext}', 'archive.tar.gz', { file: 'archive', ext: 'tar.gz' }],
    ['www{.dom*}', 'www.example.com', { dom: ['example', 'com'] }],
    ['X{.x,y}', 'X.1024.768', { x: '1024', y: '768' }],
    [
      'repo://{owner}/{repo}/contents{/path*}',
      'repo://o/r/contents/a/b%2Fc',
      { owner: 'o', repo: 'r', path: ['a', 'b/c'] },
    ],
    ['repo://{owner}/{repo}/contents{/path*}', 'repo://o/r/contents', { owner: 'o', repo: 'r' }],
    ['{/var,x}/here', '/value/1024/here', { var: 'value', x: '1024' }],
    ['{/a}/fixed', '/fixed', {}],
    ['{/a}/fixed', '/x/fixed', { a: 'x' }],
    ['{;x,y,empty}', ';x=1024;y=768;empty', { x: '1024', y: '768', empty: '' }],
    ['{;list*}', ';list=red;list=green', { list: ['red', 'green'] }],
    ['{?list*}', '?list=red&list=green&list=blue', { list: ['red', 'green', 'blue'] }],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024', { x: '1024' }],
    ['{?a}{&b,c}', '?a=1&c=3&b=2', { a: '1', b: '2', c: '3' }],
    ['{x}/{x}', 'a/a', { x: 'a' }],
    ['{x}/{x}', 'a/b', undefined],
    ['{a}', 'bad%E9byte', { a: 'bad\uFFFDbyte' }],
    ['notes://日本/{id}', 'notes://日本/1', { id: '1' }],
    ['notes://日本/{id}', 'notes://%E6%97%A5%E6%9C%AC/1', { id: '1' }],
    ['plain', 'plain', {}],
    ['plain', 'plainer', undefined],
  ];
  for (const [template, uri, expected] of cases) {
    assert.deepEqual(new UriTemplate(template).match(uri), expected, `${template} ~ ${uri}`);
  }
});

test('expand and match round-trip', () => {
  const cases: [string, Record<string, string | string[]>][] = [
    ['test://items/{id}', { id: 'héllo wörld/?#&' }],
    ['file:///{+path}', { path: 'a/b c/d.txt' }],
    ['/users/{id}{?fields,sort}', { id: '7', fields: 'a,b', sort: 'x=y&z' }],
    [
      'api{/version,resource}{.format}{?q*}{#section}',
      { version: 'v1', resource: 'r', format: 'json', q: ['1', '2 3'], section: 's' },
    ],
    ['{;a,b}{?c}{&d*}', { a: '1', b: '', c: 'é', d: ['x', 'y'] }],
    ['x{/segments*}', { segments: ['a', 'b/c', 'd e'] }],
  ];
  for (const [template, values] of cases) {
    const t = new UriTemplate(template);
    const uri = t.expand(values);
    assert.deepEqual(t.match(uri), values, `${template} -> ${uri}`);
  }
});

test('rejects malformed templates with INVALID_DEFINITION', () => {
  for (const template of [
    'test://{id',
    'test://{id}}',
    'test://id}',
    '{}',
    '{a{b}}',
    '{=a}',
    '{!a}',
    '{@a}',
    '{|a}',
    '{,a}',
    '{a,}',
    '{a b}',
    '{a-b}',
    '{a..b}',
    '{.a.}',
    '{a:0}',
    '{a:10000}',
    '{a:x}',
    '{a*:3}',
    '{a%zz}',
    'space here/{a}',
    'bad%zz{a}',
  ]) {
    assert.throws(
      () => new UriTemplate(template),
      (e: unknown) => e instanceof McpkitError && e.code === 'INVALID_DEFINITION',
      template,
    );
  }
  assert.deepEqual(new UriTemplate('{a.b,%41_1:9999,c*}').variableNames, ['a.b', '%41_1', 'c']);
});

test('enforces the length limits', () => {
  const longest = `x://${'a'.repeat(MAX_TEMPLATE_LENGTH - 9)}/{id}`;
  assert.equal(longest.length, MAX_TEMPLATE_LENGTH);
  assert.doesNotThrow(() => new UriTemplate(longest));
  assert.throws(
    () => new UriTemplate(`${longest}x`),
    (e: unknown) => e instanceof McpkitError && e.code === 'INVALID_DEFINITION',
  );
  const t = new UriTemplate('x://{+rest}');
  assert.deepEqual(t.match(`x://${'a'.repeat(MAX_URI_LENGTH - 4)}`), {
    rest: 'a'.repeat(MAX_URI_LENGTH - 4),
  });
  assert.equal(t.match(`x://${'a'.repeat(MAX_URI_LENGTH - 3)}`), undefined);
});

test('matching adversarial input stays fast (no catastrophic backtracking)', () => {
  const a = 'a'.repeat(MAX_URI_LENGTH - 1);
  const dots = '.a'.repeat(MAX_URI_LENGTH / 2 - 1);
  const adversarial: [string, string][] = [
    ['{a}{b}{c}{d}{e}x', `${a}!`],
    [`{.a}${'{.b}'.repeat(200)}!`, `${dots}?`],
    ['{name}aaaaaaaaaaaaaaaab', a],
    ['{+a}.{b}.{c}/', '.'.repeat(MAX_URI_LENGTH)],
    ['{/a}{/b}{/c}{/d}/end', `${'/x'.repeat(MAX_URI_LENGTH / 2 - 1)}?`],
    ['{?a,b,c}{&d}x', `?${'a=1&'.repeat(MAX_URI_LENGTH / 4 - 1)}`],
    ['{;a}{;b}{.c}{/d}', `;${';a=b'.repeat(MAX_URI_LENGTH / 4 - 1)}`],
  ];
  // Catastrophic backtracking on these inputs takes minutes, not milliseconds; the bound is that far off so a busy
  // machine cannot trip it, and the fastest of three tries counts (a pause of the process is not the matcher).
  for (const [template, uri] of adversarial) {
    const t = new UriTemplate(template);
    let fastest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      t.match(uri);
      fastest = Math.min(fastest, performance.now() - started);
    }
    assert.ok(fastest < 2000, `${template}: ${fastest.toFixed(0)} ms`);
  }
});
