% Benchmark input for Sunflow (komorium-ts `npm run bench`): a Cornell box with a mirror sphere,
% a glass sphere, the teapot and gumbo primitives, caustic photons and instant global illumination,
% rendered by one thread (-threads 1) so that the run and its image are deterministic.
image {
  resolution 320 240
  aa 0 1
  filter gaussian
}
trace-depths {
  diff 2
  refl 3
  refr 2
}
photons {
  caustics 200000 kd 64 0.5
}
gi {
  type igi
  samples 32
  sets 1
  b 0.00003
  bias-samples 0
}
camera {
  type pinhole
  eye 0 -205 50
  target 0 0 50
  up 0 0 1
  fov 45
  aspect 1.333333
}
shader { name Mirror type mirror refl 0.7 0.7 0.7 }
shader { name Glass type glass eta 1.6 color 1 1 1 }
shader { name Shiny type shiny diff 0.3 0.6 0.3 refl 0.3 }
shader { name Phong type phong diff 0.8 0.6 0.2 spec 0.9 0.9 0.9 30 samples 4 }
light {
  type cornellbox
  corner0 -60 -60 0
  corner1  60  60 100
  left    0.80 0.25 0.25
  right   0.25 0.25 0.80
  top     0.70 0.70 0.70
  bottom  0.70 0.70 0.70
  back    0.70 0.70 0.70
  emit    15 15 15
  samples 16
}
object { shader Mirror type sphere c -30 30 20 r 20 }
object { shader Glass type sphere c 28 2 20 r 20 }
object {
  shader Shiny
  transform { rotatez 30 scaleu 0.18 translate -5 -35 0 }
  type teapot
  name teapot
  subdivs 8
  smooth true
}
object {
  shader Phong
  transform { rotatez -40 scaleu 0.18 translate 0 40 0 }
  type gumbo
  name gumbo
  subdivs 6
  smooth true
}
