import { lockRows, type Row, type Tx } from './tx.ts';

export interface Product {
  productId: string;
  name: string;
  /** Minor units. */
  unitPrice: number;
  currency: string;
  stock: number;
}

function fromRow(row: Row): Product {
  return {
    productId: String(row['product_id']),
    name: String(row['name']),
    unitPrice: Number(row['unit_price']),
    currency: String(row['currency']),
    stock: Number(row['stock']),
  };
}

export async function findProduct(tx: Tx, productId: string): Promise<Product | undefined> {
  const row = await tx.get('SELECT * FROM products WHERE product_id = ?', productId);
  return row ? fromRow(row) : undefined;
}

/** Products whose stock a transaction changes, locked until it ends, in product-id order (see lockAccounts). */
export async function lockProducts(tx: Tx, productIds: readonly string[]): Promise<Map<string, Product>> {
  const rows = await lockRows(tx, 'products', 'product_id', productIds);
  return new Map([...rows].map(([id, row]) => [id, fromRow(row)]));
}

export async function insertProduct(tx: Tx, p: Product): Promise<void> {
  await tx.run(
    'INSERT INTO products (product_id, name, unit_price, currency, stock) VALUES (?, ?, ?, ?, ?)',
    p.productId,
    p.name,
    p.unitPrice,
    p.currency,
    p.stock,
  );
}

/** Positive delta releases stock, negative reserves it; the CHECK keeps stock from going below zero. */
export async function adjustStock(tx: Tx, productId: string, delta: number): Promise<void> {
  await tx.run('UPDATE products SET stock = stock + ? WHERE product_id = ?', delta, productId);
}
