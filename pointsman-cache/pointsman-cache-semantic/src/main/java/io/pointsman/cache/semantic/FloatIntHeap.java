package io.pointsman.cache.semantic;

import java.util.Arrays;

/** A binary min-heap of (float key, int value) pairs without boxing. Not thread-safe. */
final class FloatIntHeap {
  private float[] keys;
  private int[] values;
  private int size;

  FloatIntHeap(int capacity) {
    keys = new float[capacity];
    values = new int[capacity];
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  float peekKey() {
    return keys[0];
  }

  int peekValue() {
    return values[0];
  }

  void push(float key, int value) {
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      values = Arrays.copyOf(values, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (keys[parent] <= key) {
        break;
      }
      keys[i] = keys[parent];
      values[i] = values[parent];
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  void pop() {
    size--;
    if (size == 0) {
      return;
    }
    float key = keys[size];
    int value = values[size];
    int i = 0;
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && keys[child + 1] < keys[child]) {
        child++;
      }
      if (keys[child] >= key) {
        break;
      }
      keys[i] = keys[child];
      values[i] = values[child];
      i = child;
    }
    keys[i] = key;
    values[i] = value;
  }
}
