import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AddressRange, hostRange } from './address-range.js';

/** The range of a host as a URL writes it (the URL parser normalises IPv4 and IPv6 first). */
const ofUrl = (host: string) => hostRange(new URL(`https://${host}/`).hostname);

test('every notation of a special-purpose IPv4 address, through the URL parser', () => {
  const cases: [string, AddressRange][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['127.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['%31%32%37.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['0x0a.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
  ];
  assert.deepEqual(
    cases.map(([host]) => [host, ofUrl(host)]),
    cases,
  );
});

test('every notation of a special-purpose IPv6 address, IPv4 inside IPv6 judged as that IPv4', () => {
  const cases: [string, AddressRange][] = [
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::]', 'unspecified'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[0:0:0:0:0:ffff:7f00:1]', 'loopback'],
    ['[::ffff:169.254.169.254]', 'link-local'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['[::ffff:0:127.0.0.1]', 'loopback'],
    ['[::127.0.0.1]', 'loopback'],
    ['[::10.0.0.1]', 'private'],
    ['[::8.8.8.8]', 'reserved'],
    ['[64:ff9b::127.0.0.1]', 'loopback'],
    ['[64:ff9b::a9fe:a9fe]', 'link-local'],
    ['[64:ff9b:1::1]', 'private'],
    ['[2002:7f00:1::]', 'loopback'],
    ['[2002:a00:1::1]', 'private'],
    ['[fd00::1]', 'unique-local'],
    ['[fc00::1]', 'unique-local'],
    ['[fe80::1]', 'link-local'],
    ['[febf::1]', 'link-local'],
    ['[fec0::1]', 'private'],
    ['[ff02::1]', 'multicast'],
    ['[2001:db8::1]', 'reserved'],
    ['[2001::1]', 'reserved'],
    ['[100::1]', 'reserved'],
  ];
  assert.deepEqual(
    cases.map(([host]) => [host, ofUrl(host)]),
    cases,
  );
});

test('names: localhost and its subdomains are loopback; other names are judged when they resolve', () => {
  for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', 'a.b.localhost.'])
    assert.equal(ofUrl(host), 'loopback', host);
  for (const host of ['example.com', 'localhost.example', '127.0.0.1.nip.io', 'localtest.me', '0x7f.example'])
    assert.equal(ofUrl(host), undefined, host);
});

test('public addresses are in no range', () => {
  for (const host of [
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.32.0.1',
    '[2606:4700::1111]',
    '[64:ff9b::808:808]',
    '[2002:808:808::1]',
    '[::ffff:8.8.8.8]',
  ])
    assert.equal(ofUrl(host), undefined, host);
});

test('addresses as a resolver gives them (no brackets, a zone, zero-padded IPv4)', () => {
  assert.equal(hostRange('::ffff:127.0.0.1'), 'loopback');
  assert.equal(hostRange('fe80::1%eth0'), 'link-local');
  assert.equal(hostRange('127.000.000.001'), 'loopback');
  assert.equal(hostRange('::1'), 'loopback');
  assert.equal(hostRange('93.184.216.34'), undefined);
  for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', '::ffff:1.2.3', '256.1.1.1', '1.2.3.4.5', ''])
    assert.equal(hostRange(bad), undefined, bad);
});
