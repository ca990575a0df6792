/* Layouts pahole prints in its own ways, for tests/e2e/layout_pahole.sh
 * (`c2ctui layout` against `pahole -C`, built with -g): bitfields in
 * storage units of several sizes with bit holes, a hole before a cache
 * line, an array of an anonymous struct, a pointer to one, an anonymous
 * enum, a function pointer, a union whose anonymous struct crosses a line
 * (the line count restarts after each union member), a packed struct with
 * a member across a boundary ("was 1 byte ago"), arrays whose upper bound
 * DWARF stores in 1 or 2 bytes with the top bit set (255, 252, 65535: not
 * flexible arrays) and a flexible one. */
struct pc_hole {
	char a[63];
	short b;
	char c;
};

struct pc_bits {
	char x;
	unsigned long long a : 3;
	unsigned int b : 30;
	char y;
	int z : 4;
	long w;
};

union pc_small {
	int i;
};

struct pc_anon {
	int a;
	struct {
		int p;
		long q;
	} arr[3];
	void (*fn)(int);
	union pc_small uu;
	struct {
		int k;
	} *pp;
	enum { PC_E1, PC_E2 } e;
	struct pc_hole tail;
};

union pc_union {
	int a;
	struct {
		char x[70];
		int y;
	};
	long z;
};

struct __attribute__((packed)) pc_packed {
	char a[63];
	short b;
	char c;
};

struct pc_arrays {
	char b256[256];
	int i253[253];
	char big[65536];
	char flex[];
};

struct pc_hole pc_g1;
struct pc_bits pc_g2;
struct pc_anon pc_g3;
union pc_union pc_g4;
struct pc_packed pc_g5;
struct pc_arrays pc_g6;

int main(void)
{
	return 0;
}
