// komorium-ts from a Gradle build, Kotlin DSL, for current Gradle: the same tasks as ../build.gradle,
// from the same script plugin (komorium.gradle is Groovy; a Kotlin build script applies it alike).
// Not run by the test suite: Debian's Gradle (4.4.1) predates this Kotlin DSL (see ../README.md).
plugins {
    java
}

// After `npm install komorium-ts` in this folder the plugin is in node_modules; inside the
// komorium-ts repository it is three folders up.
val komoriumPlugin = file("node_modules/komorium-ts/komorium.gradle")
apply(from = if (komoriumPlugin.isFile) komoriumPlugin else file("../../../komorium.gradle"))

// The workload is samples/maven's, the tests ../src/test/java: one program for every sample.
sourceSets {
    main { java.setSrcDirs(listOf("../../maven/src/main/java")) }
    test { java.setSrcDirs(listOf("../src/test/java")) }
}

tasks.jar {
    manifest { attributes("Main-Class" to "com.example.workload.Main") }
    // komorium-ts's output bytes depend only on its input: keep the jar reproducible too.
    isPreserveFileTimestamps = false
    isReproducibleFileOrder = true
}

repositories { mavenCentral() }
dependencies {
    testImplementation("junit:junit:4.13.2")
    // komoriumTests: the JUnit Platform with its vintage engine runs the JUnit 4 tests, so that the
    // runtime's listener writes one profile per test (../src/test/java's PlatformSuite is for Gradle 4.4).
    testImplementation("org.junit.platform:junit-platform-runner:1.9.1")
    testRuntimeOnly("org.junit.vintage:junit-vintage-engine:5.9.2")
    testRuntimeOnly("org.junit.platform:junit-platform-launcher:1.9.1")
}

// One JVM per test class, to show komoriumTestProfile merging one profile per forked JVM.
tasks.test { forkEvery = 1L }

// `komorium { }` holds a Groovy object: Kotlin sets its properties through the Groovy builder.
extensions.getByName("komorium").withGroovyBuilder {
    setProperty("args", listOf("200000"))
    setProperty("failUnder", 90)
    setProperty("maxGrowth", "5%")
    // Left out of `test` and of komoriumTests, which uses useJUnitPlatform() on this Gradle.
    setProperty("platformSuite", "com.example.workload.PlatformSuite")
}
