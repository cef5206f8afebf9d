package io.flightsql.spark.testing;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Class loaders that load this JVM's class path afresh, beside the application's own: their classes
 * are initialised anew, and jars can be left out. For tests of what happens once per JVM, or
 * without a library. Surefire may hand the JVM one jar whose manifest lists the class path; that
 * list is followed.
 */
public final class IsolatedClassPath {
  private IsolatedClassPath() {}

  /**
   * A loader of the class path without the jars whose file names start with one of {@code leftOut},
   * over the platform's classes only. The caller closes it.
   */
  public static URLClassLoader without(String... leftOut) throws IOException {
    List<URL> urls = new ArrayList<>();
    for (File entry : entries()) {
      if (!leftOut(entry.getName(), leftOut)) {
        urls.add(entry.toURI().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
  }

  private static boolean leftOut(String name, String[] prefixes) {
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static List<File> entries() throws IOException {
    List<File> entries = new ArrayList<>();
    for (String path : System.getProperty("java.class.path").split(File.pathSeparator)) {
      File file = new File(path);
      List<File> listed = file.isFile() ? manifestClassPath(file) : List.of();
      if (listed.isEmpty()) {
        entries.add(file);
      } else {
        entries.addAll(listed);
      }
    }
    return entries;
  }

  /** The entries a jar's manifest lists in {@code Class-Path}, as surefire's booter jar has. */
  private static List<File> manifestClassPath(File jar) throws IOException {
    List<File> listed = new ArrayList<>();
    try (JarFile file = new JarFile(jar)) {
      Manifest manifest = file.getManifest();
      String classPath =
          manifest == null
              ? null
              : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
      if (classPath == null || classPath.isBlank()) {
        return listed;
      }
      for (String entry : classPath.trim().split("\\s+")) {
        listed.add(new File(jar.toURI().resolve(entry)));
      }
    }
    return listed;
  }
}
