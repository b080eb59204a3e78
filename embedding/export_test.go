package embedding

// Unit is unit for the benchmarks.
func Unit(v []float64) []float32 { u, _ := unit(v); return u }

// NewCacheOf is a cache holding vecs under keys "k0", "k1", …
func NewCacheOf(vecs [][]float32) *cache {
	c := newCache()
	for i, v := range vecs {
		q, inv := quantize(v)
		c.add(record{key: "k" + itoa(i), inv: inv, vec: q})
	}
	return c
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// SearchCache is cache.search.
func SearchCache(c *cache, q []float32, k int, floor float64) []Match { return c.search(q, k, floor) }

// WriteCache writes vecs as a vector file at path.
func WriteCache(path string, vecs [][]float32) error {
	rs := make([]record, len(vecs))
	for i, v := range vecs {
		q, inv := quantize(v)
		rs[i] = record{hash: HashOf(itoa(i)), key: "project:" + itoa(i) + "0123456789abcdef0123", inv: inv, vec: q}
	}
	return appendRecords(path, rs)
}

// LoadFresh reads path as a new process would.
func LoadFresh(path string) (int, error) {
	forget(path)
	c, err := load(path)
	if err != nil {
		return 0, err
	}
	return len(c.keys), nil
}
