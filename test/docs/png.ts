/** Just enough PNG decoding (8-bit RGB/RGBA, non-interlaced, as Chromium writes them) to tell a blank screenshot. */
import { inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

export function decodePng(png: Buffer): Pixels {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [bitDepth, colorType, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG (depth ${bitDepth}, colour type ${colorType})`);
      channels = colorType === 6 ? 4 : 3;
    }
    if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? data[y * stride + x - channels]! : 0;
      const up = y > 0 ? data[(y - 1) * stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? data[(y - 1) * stride + x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      data[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** How many distinct colours, and the share of pixels not of the most common one (the background). */
export function colourSpread(pixels: Pixels): { colours: number; notBackground: number } {
  const counts = new Map<number, number>();
  const { data, channels } = pixels;
  for (let i = 0; i < data.length; i += channels) {
    const rgb = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
    counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
  }
  const total = data.length / channels;
  const background = Math.max(...counts.values());
  return { colours: counts.size, notBackground: (total - background) / total };
}
