package embed

// Unit is unit for the benchmarks.
func Unit(v []float64) []float32 { u, _ := unit(v); return u }

// NewCacheOf is a cache holding vecs under keys "k0", "k1", …
func NewCacheOf(vecs [][]float32) *cache {
	c := newCache()
	for i, v := range vecs {
		c.add(record{key: "k" + itoa(i), vec: quantize(v)})
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
