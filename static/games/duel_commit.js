// Duel commitments, checked in the browser (docs/commitments.md).
//
//   commitment = sha256_hex(salt_hex + ":" + canonical_json(choice))
//   canonical_json(x) = json.dumps(x, sort_keys=True, separators=(",", ":"))   # Python, ensure_ascii
//
// canonicalJson() reproduces Python's output byte for byte for everything JSON can carry:
// keys sorted by code point (not by UTF-16 unit, which is what Array.prototype.sort does),
// every character outside printable ASCII escaped as \uXXXX with lowercase hex (astral
// characters as their surrogate pair, as Python does), the short escapes \" \\ \n \r \t \b \f,
// safe integers as ints, other numbers as Python's float repr, NaN/Infinity as Python writes
// them. (One thing no JavaScript code can reproduce: a float with no fraction, like 1.0, arrives
// from JSON.parse as 1 and is written as the int 1. Duel's choices hold no numbers at all.) verifyCommitment() mirrors games/duel/commit.py's verify_commitment: pure, never
// throws, false for anything that is not a well-formed match.
//
// The digest uses crypto.subtle where the page has it (secure contexts: https and localhost);
// elsewhere a small built-in SHA-256 gives the same answer.

const SHORT_ESCAPES = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function quote(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (code < 0x20 || code > 0x7e) out += '\\u' + code.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** Python's float repr for a finite, non-integer double. */
function floatRepr(x) {
  // toExponential() without an argument gives the shortest digits that round-trip, like repr.
  const [mant, expPart] = x.toExponential().split('e');
  const exp = Number(expPart);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const decpt = exp + 1; // position of the decimal point relative to the digits
  let body;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) body = '0.' + '0'.repeat(-decpt) + digits;
    else if (decpt >= digits.length) body = digits + '0'.repeat(decpt - digits.length) + '.0';
    else body = digits.slice(0, decpt) + '.' + digits.slice(decpt);
  } else {
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const e = Math.abs(exp);
    body = `${m}e${exp < 0 ? '-' : '+'}${String(e).padStart(2, '0')}`;
  }
  return (neg ? '-' : '') + body;
}

function number(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  // JSON.parse cannot tell 1 from 1.0: a whole number in the safe range is taken to be an int
  // (what every Duel choice would hold); beyond 2^53 a double can only have come from a float
  // (an int that large would not have survived the trip into JavaScript anyway).
  if (Number.isSafeInteger(x)) return String(x);
  return floatRepr(x);
}

/** Compare two strings by Unicode code point (Python's str ordering). */
export function codePointCompare(a, b) {
  const A = Array.from(a);
  const B = Array.from(b);
  const n = Math.min(A.length, B.length);
  for (let i = 0; i < n; i++) {
    const x = A[i].codePointAt(0);
    const y = B[i].codePointAt(0);
    if (x !== y) return x < y ? -1 : 1;
  }
  return A.length === B.length ? 0 : A.length < B.length ? -1 : 1;
}

/** json.dumps(value, sort_keys=True, separators=(",", ":")) as Python writes it. Throws a
 *  TypeError for values JSON cannot hold (undefined, functions, symbols, BigInt cycles…). */
export function canonicalJson(value, seen = new Set()) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return number(value);
    case 'bigint':
      return value.toString();
    case 'string':
      return quote(value);
    case 'object':
      break;
    default:
      throw new TypeError(`not JSON serialisable: ${typeof value}`);
  }
  if (seen.has(value)) throw new TypeError('circular reference');
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return '[' + value.map((v) => canonicalJson(v, seen)).join(',') + ']';
    }
    const keys = Object.keys(value).sort(codePointCompare);
    return '{' + keys.map((k) => quote(k) + ':' + canonicalJson(value[k], seen)).join(',') + '}';
  } finally {
    seen.delete(value);
  }
}

// ---------------------------------------------------------------------------------------------
// SHA-256
// ---------------------------------------------------------------------------------------------
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** Plain-JS SHA-256 of bytes -> Uint8Array(32) (used when crypto.subtle is unavailable). */
export function sha256Fallback(bytes) {
  const len = bytes.length;
  const total = Math.ceil((len + 9) / 64) * 64;
  const buf = new Uint8Array(total);
  buf.set(bytes);
  buf[len] = 0x80;
  const dv = new DataView(buf.buffer);
  dv.setUint32(total - 8, Math.floor(len / 0x20000000));
  dv.setUint32(total - 4, (len * 8) >>> 0);
  const H = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const W = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) W[i] = dv.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(W[i - 15], 7) ^ rotr(W[i - 15], 18) ^ (W[i - 15] >>> 3);
      const s1 = rotr(W[i - 2], 17) ^ rotr(W[i - 2], 19) ^ (W[i - 2] >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[i] + W[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    H[0] += a;
    H[1] += b;
    H[2] += c;
    H[3] += d;
    H[4] += e;
    H[5] += f;
    H[6] += g;
    H[7] += h;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  H.forEach((v, i) => odv.setUint32(i * 4, v));
  return out;
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle && typeof subtle.digest === 'function') {
    try {
      return hex(new Uint8Array(await subtle.digest('SHA-256', bytes)));
    } catch {
      /* fall through to the built-in digest */
    }
  }
  return hex(sha256Fallback(bytes));
}

// A lone surrogate cannot be encoded as UTF-8: Python raises (verify -> False); TextEncoder
// would silently substitute U+FFFD, so catch it first.
function hasLoneSurrogate(s) {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** The commitment of `choice` under `salt` (lowercase hex). */
export async function commitmentOf(salt, choice) {
  return sha256Hex(`${salt}:${canonicalJson(choice)}`);
}

/** True when `choice` with `salt` hashes to `commitment` (games.duel.commit.verify_commitment).
 *  Never throws. */
export async function verifyCommitment(commitment, salt, choice) {
  try {
    if (typeof commitment !== 'string' || typeof salt !== 'string') return false;
    if (hasLoneSurrogate(salt)) return false;
    const expected = await commitmentOf(salt, choice);
    return expected === commitment.toLowerCase();
  } catch {
    return false;
  }
}
