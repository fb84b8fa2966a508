/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, mod 16384),
 * so that commands over many keys can be grouped per slot.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

export function keySlot(key: string): number {
  let hashed = key;
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(hashed)) crc = ((crc << 8) & 0xffff) ^ TABLE[(crc >> 8) ^ byte];
  return crc % 16384;
}
