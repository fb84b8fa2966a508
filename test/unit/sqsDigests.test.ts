/** SQS's digests against vectors published with other SQS implementations (sqslite, a JS checksum library). */
import { md5Hex, md5OfMessageAttributes } from '../../src/sqs/md5';

test('MD5OfMessageAttributes matches published vectors', () => {
  expect(
    md5OfMessageAttributes({
      ordinal: { DataType: 'Number', StringValue: '1' },
      category: { DataType: 'String', StringValue: 'test' },
    }),
  ).toBe('d21ae90c49061e927f57df5f5d72be1f');
  expect(
    md5OfMessageAttributes({ SellerName: { DataType: 'String', StringValue: 'Example Store' } }),
  ).toBe('cd28f3b68aeee4b2eac9c66f2f694b58');
});

test('a binary attribute is hashed as its decoded bytes with transport type 2', () => {
  const bytes = Buffer.from([0, 1, 2, 255]);
  const expected = md5Hex(
    Buffer.concat([
      Buffer.from([0, 0, 0, 3]),
      Buffer.from('bin'),
      Buffer.from([0, 0, 0, 6]),
      Buffer.from('Binary'),
      Buffer.from([2]),
      Buffer.from([0, 0, 0, 4]),
      bytes,
    ]),
  );
  expect(
    md5OfMessageAttributes({ bin: { DataType: 'Binary', BinaryValue: bytes.toString('base64') } }),
  ).toBe(expected);
});

test('MD5OfMessageBody is the MD5 of the UTF-8 body', () => {
  expect(md5Hex('hello')).toBe('5d41402abc4b2a76b9719d911017c592');
});
